import http from 'node:http'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import OpenAI, { toFile } from 'openai'
import { TEST_KEY, type TestGateway } from '../support/gateway.js'
import { silentWav, toneWav } from '../support/audio.js'
import { startAudioGateway } from './audio-gateway.js'

const test = suite('e2e transcription and translation with the openai SDK')
let gw: TestGateway
let client: OpenAI

test.before(async () => {
  gw = await startAudioGateway()
  client = gw.openai()
})
test.after(async () => gw.close())

/** 12.5 s of tone: the simulated Whisper makes 5 s segments, so three, the last ending at 12.5. */
const recording = toneWav(12.5)
const wavFile = () => toFile(recording, 'meeting.wav', { type: 'audio/wav' })

interface Verbose {
  task: string
  language: string
  duration: number
  text: string
  segments: { id: number; start: number; end: number; text: string }[]
}

test('verbose_json: language by name, duration a number, segments covering the real length', async () => {
  // sim-whisper answers as vLLM does: duration "12.50" (a string), language "en".
  const v = (await client.audio.transcriptions.create({
    model: 'sim-whisper',
    file: await wavFile(),
    response_format: 'verbose_json',
  })) as unknown as Verbose
  assert.is(v.task, 'transcribe')
  assert.is(v.language, 'english')
  assert.type(v.duration, 'number')
  assert.is(v.duration, 12.5)
  assert.equal(
    v.segments.map((s) => [s.start, s.end]),
    [
      [0, 5],
      [5, 10],
      [10, 12.5],
    ],
  )
  assert.ok(v.text.length > 0)
})

test('json: {text}, the same text', async () => {
  const j = await client.audio.transcriptions.create({
    model: 'sim-whisper',
    file: await wavFile(),
    response_format: 'json',
  })
  const v = (await client.audio.transcriptions.create({
    model: 'sim-whisper',
    file: await wavFile(),
    response_format: 'verbose_json',
  })) as unknown as Verbose
  assert.is(j.text, v.text)
})

test('text: the plain transcript', async () => {
  const t = (await client.audio.transcriptions.create({
    model: 'sim-whisper',
    file: await wavFile(),
    response_format: 'text',
  })) as unknown as string
  assert.type(t, 'string')
  assert.match(t, /^The simulator heard this part of the recording\./)
  assert.not.match(t, /^\{/)
})

test('srt: rendered by the gateway from the segments (the vLLM-like server has no srt)', async () => {
  const srt = (await client.audio.transcriptions.create({
    model: 'sim-whisper',
    file: await wavFile(),
    response_format: 'srt',
  })) as unknown as string
  assert.match(srt, /^1\n00:00:00,000 --> 00:00:05,000\n\S/)
  assert.match(srt, /\n2\n00:00:05,000 --> 00:00:10,000\n/)
  assert.match(srt, /\n3\n00:00:10,000 --> 00:00:12,500\n/)
  assert.is(srt.split('-->').length - 1, 3)
})

test('vtt: rendered by the gateway, WEBVTT with dotted milliseconds', async () => {
  const vtt = (await client.audio.transcriptions.create({
    model: 'sim-whisper',
    file: await wavFile(),
    response_format: 'vtt',
  })) as unknown as string
  assert.match(vtt, /^WEBVTT\n\n00:00:00\.000 --> 00:00:05\.000\n/)
  assert.match(vtt, /00:00:10\.000 --> 00:00:12\.500\n/)
})

test('a server with all five formats (sim-parakeet) answers srt itself; the gateway passes it on', async () => {
  const srt = (await client.audio.transcriptions.create({
    model: 'sim-parakeet',
    file: await wavFile(),
    response_format: 'srt',
  })) as unknown as string
  assert.match(srt, /^1\n00:00:00,000 --> 00:00:05,000\n/)
  const v = (await client.audio.transcriptions.create({
    model: 'sim-parakeet',
    file: await wavFile(),
    response_format: 'verbose_json',
  })) as unknown as Verbose
  assert.is(v.duration, 12.5)
  assert.is(v.language, 'english')
})

test('language and prompt reach the server', async () => {
  const v = (await client.audio.transcriptions.create({
    model: 'sim-whisper',
    file: await wavFile(),
    response_format: 'verbose_json',
    language: 'fr',
    prompt: 'Names: Sluice',
  })) as unknown as Verbose
  assert.is(v.language, 'french')
  // The simulated Whisper continues its prompt: the first segment starts with the prompt's last word.
  assert.match(v.segments[0]!.text, /^\s*Sluice /)
})

test('mp3, flac and ogg/opus uploads: durations from the audio actually sent', async () => {
  for (const format of ['mp3', 'flac', 'opus'] as const) {
    const speech = Buffer.from(
      await (
        await client.audio.speech.create({
          model: 'sim-orpheus',
          voice: 'tara',
          input: 'A short recording to transcribe.',
          response_format: format,
        })
      ).arrayBuffer(),
    )
    const pcm = Buffer.from(
      await (
        await client.audio.speech.create({
          model: 'sim-orpheus',
          voice: 'tara',
          input: 'A short recording to transcribe.',
          response_format: 'pcm',
        })
      ).arrayBuffer(),
    )
    const want = pcm.length / 2 / 24000
    const v = (await client.audio.transcriptions.create({
      model: 'sim-whisper',
      file: await toFile(speech, `speech.${format === 'opus' ? 'ogg' : format}`),
      response_format: 'verbose_json',
    })) as unknown as Verbose
    assert.ok(Math.abs(v.duration - want) < 0.1, `${format}: ${v.duration} s, want ${want} s`)
  }
})

test('translation: English text from the model that translates', async () => {
  const v = (await client.audio.translations.create({
    model: 'sim-whisper',
    file: await wavFile(),
    response_format: 'verbose_json',
  })) as unknown as Verbose
  assert.is(v.task, 'translate')
  assert.is(v.language, 'english')
  assert.match(v.text, /^\(English\) /)
  const json = await client.audio.translations.create({ model: 'sim-whisper', file: await wavFile() })
  assert.match(json.text, /^\(English\) /)
})

test('translation refused by a transcription-only model', async () => {
  try {
    await client.audio.translations.create({ model: 'sim-parakeet', file: await wavFile() })
    assert.unreachable()
  } catch (err) {
    assert.instance(err, OpenAI.BadRequestError)
    assert.is(
      (err as InstanceType<typeof OpenAI.APIError>).message,
      '400 model sim-parakeet does not translate; use a model with translation',
    )
  }
})

test('a long recording within the limit is accepted: 60 MiB of WAV, about 33 minutes', async () => {
  const long = silentWav(60 * 1024 * 1024, 16000)
  const v = (await client.audio.transcriptions.create({
    model: 'sim-whisper',
    file: await toFile(long, 'long.wav'),
    response_format: 'verbose_json',
  })) as unknown as Verbose
  const want = (long.length - 44) / 32000
  assert.ok(Math.abs(v.duration - want) < 0.01, `${v.duration} s`)
  assert.is(v.segments.length, Math.ceil(want / 5))
  assert.is(v.segments.at(-1)!.end, Math.round(want * 100) / 100)
})

test('refused: an upload over 64 MiB → 413 "request body too large"', async () => {
  const oversize = Buffer.alloc(64 * 1024 * 1024 + 1)
  try {
    await client.audio.transcriptions.create({ model: 'sim-whisper', file: await toFile(oversize, 'huge.wav') })
    assert.unreachable()
  } catch (err) {
    assert.instance(err, OpenAI.APIError)
    assert.is((err as InstanceType<typeof OpenAI.APIError>).status, 413)
    assert.equal((err as InstanceType<typeof OpenAI.APIError>).error, {
      message: 'request body too large',
      type: 'gateway_error',
    })
  }
})

test('refused without reading on: a chunked upload of unknown length gets its 413 once past the limit, long before its end', async () => {
  // 256 MiB offered in 1 MiB chunks, with no Content-Length: the gateway cannot refuse up front.
  const total = 256
  const boundary = 'sluice-test-boundary'
  const { status, body, sentMiB } = await new Promise<{ status: number; body: string; sentMiB: number }>(
    (resolve, reject) => {
      let sent = 0
      let answered = false
      const req = http.request(`${gw.url}/v1/audio/transcriptions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TEST_KEY}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'transfer-encoding': 'chunked',
        },
      })
      req.on('response', (res) => {
        answered = true
        const at = sent
        let text = ''
        res.on('data', (c: Buffer) => (text += c.toString()))
        res.on('end', () => {
          req.destroy()
          resolve({ status: res.statusCode ?? 0, body: text, sentMiB: at })
        })
      })
      req.on('error', (err) => (answered ? undefined : reject(err)))
      req.write(
        `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nsim-whisper\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n`,
      )
      const chunk = Buffer.alloc(1024 * 1024)
      const pump = () => {
        while (!answered && sent < total) {
          sent++
          if (!req.write(chunk)) return void req.once('drain', pump)
        }
        if (!answered) req.end()
      }
      pump()
    },
  )
  assert.is(status, 413)
  assert.equal(JSON.parse(body), { error: { message: 'request body too large', type: 'gateway_error' } })
  assert.ok(sentMiB < total, `answered after ${sentMiB} of ${total} MiB had been offered`)
})

test('refused: an unknown response_format, a speech model, no file', async () => {
  const bad = async (params: Record<string, unknown>) => {
    try {
      await client.audio.transcriptions.create({
        model: 'sim-whisper',
        file: await wavFile(),
        ...params,
      } as unknown as OpenAI.Audio.TranscriptionCreateParamsNonStreaming)
    } catch (err) {
      return err as InstanceType<typeof OpenAI.APIError>
    }
    throw new Error('expected a refusal')
  }
  const format = await bad({ response_format: 'docx' })
  assert.is(format.status, 400)
  assert.is(format.message, '400 response_format docx is not one of json, text, srt, vtt, verbose_json')
  const speechModel = await bad({ model: 'sim-orpheus' })
  assert.is(speechModel.status, 400)
  const res = await fetch(`${gw.url}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}` },
    body: (() => {
      const f = new FormData()
      f.append('model', 'sim-whisper')
      return f
    })(),
  })
  assert.is(res.status, 400)
  assert.equal(await res.json(), { error: { message: 'file is required', type: 'gateway_error' } })
})

test.run()
