import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import OpenAI from 'openai'
import type { TestGateway } from '../support/gateway.js'
import {
  decimate,
  decode,
  flacInfo,
  likeness,
  mp3Header,
  opusInputRate,
  parseWav,
  rms,
  seconds,
  syntheticSamples,
} from '../support/audio.js'
import { msPerChar, startAudioGateway } from './audio-gateway.js'

const test = suite('e2e speech with the openai SDK')
let gw: TestGateway
let client: OpenAI

test.before(async () => {
  gw = await startAudioGateway()
  client = gw.openai()
})
test.after(async () => gw.close())

const INPUT = 'Hello from the gateway <laugh> and welcome.'
/** What the simulated Orpheus makes of INPUT: the documented pace of its synthetic voice. */
const expectedSamples = () => syntheticSamples(INPUT, msPerChar('sim-orpheus'))

async function speak(
  format: 'mp3' | 'opus' | 'flac' | 'wav' | 'pcm',
  extra: Partial<OpenAI.Audio.SpeechCreateParams> = {},
): Promise<{ bytes: Buffer; type: string | null }> {
  const res = await client.audio.speech.create({
    model: 'sim-orpheus',
    voice: 'tara',
    input: INPUT,
    response_format: format,
    ...extra,
  })
  return { bytes: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') }
}

test('pcm: raw 16-bit little-endian samples at 24 kHz, as long as the text takes to say', async () => {
  const { bytes, type } = await speak('pcm')
  assert.is(type, 'audio/pcm')
  assert.is(bytes.length, expectedSamples() * 2)
  assert.ok(rms(bytes) > 0.01, 'not silence')
})

test('wav: a streamed header (sizes 0xFFFFFFFF), 24 kHz mono 16-bit, the same samples as pcm', async () => {
  const { bytes, type } = await speak('wav')
  assert.is(type, 'audio/wav')
  const wav = parseWav(bytes)
  assert.equal([wav.sampleRate, wav.channels, wav.bitsPerSample], [24000, 1, 16])
  assert.is(wav.riffSize, 0xffffffff)
  assert.is(wav.dataSize, 0xffffffff)
  assert.is(wav.pcm.length, expectedSamples() * 2)
  assert.ok(wav.pcm.equals((await speak('pcm')).bytes))
})

test('flac: encoded by the gateway, lossless: decodes to exactly the pcm samples', async () => {
  const { bytes, type } = await speak('flac')
  assert.is(type, 'audio/flac')
  assert.equal(flacInfo(bytes), { sampleRate: 24000, channels: 1, totalSamples: expectedSamples() })
  const decoded = await decode('flac', bytes)
  assert.equal([decoded.sampleRate, decoded.channels, decoded.errors], [24000, 1, 0])
  assert.ok(decoded.pcm.equals((await speak('pcm')).bytes), 'lossless round trip')
})

test('mp3: encoded by the gateway; decodes to 24 kHz mono of the asked duration, sounding like the pcm', async () => {
  const { bytes, type } = await speak('mp3')
  assert.is(type, 'audio/mpeg')
  assert.equal(mp3Header(bytes), { sampleRate: 24000, channels: 1 })
  const decoded = await decode('mp3', bytes)
  assert.equal([decoded.sampleRate, decoded.channelsEqual, decoded.errors], [24000, true, 0])
  const want = expectedSamples() / 24000
  // Without a LAME tag the decoder keeps the encoder's delay and padding: at most a few 24 ms frames.
  assert.ok(seconds(decoded) >= want && seconds(decoded) - want < 0.1, `${seconds(decoded)} s, want ${want} s`)
  assert.ok(rms(decoded.pcm) > 0.01, 'not silence')
  // The same speech, shifted by the encoder's delay (under 2,400 samples: 0.1 s).
  const like = likeness((await speak('pcm')).bytes, decoded.pcm, 2400)
  assert.ok(like > 0.9, `likeness ${like}`)
})

test('opus: Ogg Opus encoded from 24 kHz mono; decodes to exactly the asked duration, sounding like the pcm', async () => {
  const { bytes, type } = await speak('opus')
  assert.is(type, 'audio/ogg; codecs=opus')
  assert.is(bytes.toString('ascii', 0, 4), 'OggS')
  assert.is(opusInputRate(bytes), 24000)
  const decoded = await decode('opus', bytes)
  // Opus decodes at 48 kHz; the pre-skip and the end trimming leave exactly the samples sent.
  assert.equal([decoded.sampleRate, decoded.channels, decoded.errors], [48000, 1, 0])
  assert.is(decoded.pcm.length / 2, expectedSamples() * 2)
  assert.ok(rms(decoded.pcm) > 0.01, 'not silence')
  const like = likeness((await speak('pcm')).bytes, decimate(decoded.pcm, 2), 2)
  assert.ok(like > 0.9, `likeness ${like}`)
})

test("mp3 is the default format, as in the OpenAI API: the SDK's plainest call gets a real mp3", async () => {
  const input = 'Hi there, this is the default format.'
  const res = await client.audio.speech.create({ model: 'sim-orpheus', voice: 'tara', input })
  assert.is(res.headers.get('content-type'), 'audio/mpeg')
  const bytes = Buffer.from(await res.arrayBuffer())
  assert.equal(mp3Header(bytes), { sampleRate: 24000, channels: 1 })
  const decoded = await decode('mp3', bytes)
  assert.equal([decoded.sampleRate, decoded.errors], [24000, 0])
  const want = syntheticSamples(input, msPerChar('sim-orpheus')) / 24000
  assert.ok(seconds(decoded) >= want && seconds(decoded) - want < 0.1, `${seconds(decoded)} s, want ${want} s`)
  assert.ok(rms(decoded.pcm) > 0.01, 'not silence')
})

test("a standard voice name is mapped onto the model's own voice (alloy → tara)", async () => {
  const alloy = await speak('pcm', { voice: 'alloy' })
  const tara = await speak('pcm', { voice: 'tara' })
  const leo = await speak('pcm', { voice: 'leo' })
  assert.ok(alloy.bytes.equals(tara.bytes))
  assert.not.ok(leo.bytes.equals(tara.bytes), 'another voice sounds different')
})

test('multilingual model: the whole file, with its true WAV sizes; language and instructions accepted', async () => {
  const input = 'Bonjour tout le monde.'
  const res = await client.audio.speech.create({
    model: 'sim-qwen3-tts',
    voice: 'ono_anna',
    input,
    response_format: 'wav',
    language: 'french',
    instructions: 'Speak warmly and slowly.',
  } as OpenAI.Audio.SpeechCreateParams)
  const wav = parseWav(Buffer.from(await res.arrayBuffer()))
  assert.equal([wav.sampleRate, wav.channels], [24000, 1])
  assert.is(wav.dataSize, wav.pcm.length, 'a whole file states its size')
  assert.is(wav.pcm.length, syntheticSamples(input, msPerChar('sim-qwen3-tts')) * 2)
})

test('SSE (stream_format sse, pcm): speech.audio.delta events in order, then speech.audio.done with usage, no [DONE]', async () => {
  const res = await client.audio.speech.create({
    model: 'sim-orpheus',
    voice: 'tara',
    input: INPUT,
    response_format: 'pcm',
    stream_format: 'sse',
  })
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/)
  const text = await res.text()
  assert.not.match(text, /\[DONE\]/)
  const events = text
    .split('\n\n')
    .filter((l) => l.startsWith('data: '))
    .map(
      (l) =>
        JSON.parse(l.slice(6)) as {
          type: string
          audio?: string
          usage?: { input_tokens: number; output_tokens: number; total_tokens: number }
        },
    )
  assert.ok(events.length >= 2)
  const last = events.at(-1)!
  assert.is(last.type, 'speech.audio.done')
  assert.ok(events.slice(0, -1).every((e) => e.type === 'speech.audio.delta' && typeof e.audio === 'string'))
  const audio = Buffer.concat(events.slice(0, -1).map((e) => Buffer.from(e.audio!, 'base64')))
  assert.is(audio.length, expectedSamples() * 2)
  assert.ok(
    events.slice(0, -1).every((e) => Buffer.from(e.audio!, 'base64').length % 2 === 0),
    'each delta holds whole samples',
  )
  const usage = last.usage!
  assert.ok(usage.input_tokens > 0 && usage.output_tokens > 0)
  assert.is(usage.total_tokens, usage.input_tokens + usage.output_tokens)
  assert.is(usage.output_tokens, Math.ceil((expectedSamples() * 7) / 2048), '7 audio tokens per 2048 samples')
})

test('SSE with stream: true and wav: the first delta starts with the WAV header', async () => {
  const res = await client.audio.speech.create({
    model: 'sim-orpheus',
    voice: 'tara',
    input: 'Short.',
    response_format: 'wav',
    stream: true,
  } as OpenAI.Audio.SpeechCreateParams)
  const text = await res.text()
  const first = JSON.parse(text.split('\n\n')[0]!.slice(6)) as { type: string; audio: string }
  assert.is(first.type, 'speech.audio.delta')
  assert.is(Buffer.from(first.audio, 'base64').toString('ascii', 0, 4), 'RIFF')
  assert.match(text, /"type":"speech\.audio\.done"/)
})

test('streamed pcm: the first bytes arrive while the server is still generating, long before the end', async () => {
  // Timing for this request only: first audio after 50 ms, then 10 times real time (~2 s of audio).
  const input = 'This sentence is long enough to take about two seconds'
  const res = await client.audio.speech.create(
    { model: 'sim-orpheus', voice: 'tara', input, response_format: 'pcm' },
    { headers: { 'x-sim-first-audio-ms': '50', 'x-sim-realtime-factor': '10' } },
  )
  const reader = res.body!.getReader()
  const reads: number[] = []
  let runningAtFirstRead = -1
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    if (reads.length === 0) runningAtFirstRead = (await gw.simulator!.stats()).models['sim-orpheus']!.running
    reads.push(value.length)
  }
  const total = reads.reduce((a, b) => a + b, 0)
  assert.is(total, syntheticSamples(input, msPerChar('sim-orpheus')) * 2)
  assert.is(runningAtFirstRead, 1, 'when the first bytes arrived, the server was still generating this request')
  assert.ok(reads.length >= 5, `arrived in ${reads.length} reads`)
  assert.ok(reads[0]! <= total / 5, `the first read held ${reads[0]} of ${total} bytes`)
})

const refusal = async (params: Record<string, unknown>): Promise<InstanceType<typeof OpenAI.APIError>> => {
  try {
    await client.audio.speech.create({
      model: 'sim-orpheus',
      voice: 'tara',
      input: 'Hello.',
      ...params,
    } as unknown as OpenAI.Audio.SpeechCreateParams)
  } catch (err) {
    assert.instance(err, OpenAI.APIError)
    return err as InstanceType<typeof OpenAI.APIError>
  }
  throw new Error('expected a refusal')
}

test('refused: SSE with mp3, opus or flac → 400 "Streaming needs response_format pcm or wav"', async () => {
  for (const response_format of ['mp3', 'opus', 'flac']) {
    const err = await refusal({ response_format, stream_format: 'sse' })
    assert.is(err.status, 400)
    assert.is((err.error as { message: string }).message, 'Streaming needs response_format pcm or wav')
  }
  const viaStream = await refusal({ response_format: 'mp3', stream: true })
  assert.is(viaStream.status, 400)
  assert.is((viaStream.error as { message: string }).message, 'Streaming needs response_format pcm or wav')
})

test('refused: speed other than 1.0 on the streaming model → 400 with a clear message; 1.0 is fine', async () => {
  const err = await refusal({ speed: 1.25, response_format: 'pcm' })
  assert.is(err.status, 400)
  assert.is(
    (err.error as { message: string }).message,
    'speed 1.25 is not supported by model sim-orpheus: it speaks only at speed 1.0 (leave speed out or send 1.0)',
  )
  const ok = await client.audio.speech.create({
    model: 'sim-orpheus',
    voice: 'tara',
    input: 'Hi.',
    speed: 1.0,
    response_format: 'pcm',
  })
  assert.is(ok.status, 200)
})

test('refused: input over 20,000 characters on the streaming model → 400; exactly 20,000 is accepted', async () => {
  const err = await refusal({ input: 'a'.repeat(20_001), response_format: 'pcm' })
  assert.is(err.status, 400)
  assert.is(
    (err.error as { message: string }).message,
    'input is too long: 20001 characters (maximum 20000 for model sim-orpheus)',
  )
  // 20,000 characters are over 20 minutes of speech: the first audio proves acceptance, and the
  // rest is abandoned (paced by the simulator, so little of it is ever made).
  const ok = await client.audio.speech.create(
    { model: 'sim-orpheus', voice: 'tara', input: 'a'.repeat(20_000), response_format: 'pcm' },
    { headers: { 'x-sim-realtime-factor': '50' } },
  )
  assert.is(ok.status, 200)
  const reader = ok.body!.getReader()
  const first = await reader.read()
  assert.ok(first.value && first.value.length > 0, 'audio arrives')
  await reader.cancel()
})

test('refused: an unknown voice, a language the English model lacks, a chat model', async () => {
  const voice = await refusal({ voice: 'vivian' })
  assert.is(voice.status, 400)
  assert.match(
    (voice.error as { message: string }).message,
    /^voice vivian is not available for model sim-orpheus; use one of tara, leah/,
  )
  const language = await refusal({ language: 'french' })
  assert.is(language.status, 400)
  assert.is(
    (language.error as { message: string }).message,
    'language french is not one of auto, english for model sim-orpheus',
  )
  const chat = await refusal({ model: 'sim-chat-instruct' })
  assert.is(chat.status, 400)
})

test('GET /audio/voices?model=: the voices of each speech model, and uploaded_voices', async () => {
  const orpheus = await client.get('/audio/voices', { query: { model: 'sim-orpheus' } })
  assert.equal(orpheus, { voices: ['tara', 'leah', 'jess', 'leo', 'dan', 'mia', 'zac', 'zoe'], uploaded_voices: [] })
  const qwen = await client.get('/audio/voices', { query: { model: 'sim-qwen3-tts' } })
  assert.equal(qwen, {
    voices: ['vivian', 'serena', 'ryan', 'aiden', 'dylan', 'eric', 'ono_anna', 'sohee', 'uncle_fu'],
    uploaded_voices: [],
  })
  try {
    await client.get('/audio/voices', { query: { model: 'nope' } })
    assert.unreachable()
  } catch (err) {
    assert.is((err as InstanceType<typeof OpenAI.APIError>).status, 404)
  }
  try {
    await client.get('/audio/voices', { query: { model: 'sim-chat' } })
    assert.unreachable()
  } catch (err) {
    assert.instance(err, OpenAI.BadRequestError)
    assert.is(
      (err as InstanceType<typeof OpenAI.BadRequestError>).message,
      '400 model sim-chat is not a speech model',
      'a family is a name too',
    )
  }
})

test.run()
