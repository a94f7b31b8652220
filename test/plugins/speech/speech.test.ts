import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import speech from '../../../plugins/speech/index.js'
import { makeKernel, runPlugin, type Run } from '../../../bin/testing/harness.js'
import { startFakeUpstream, type FakeUpstream } from '../../support/fake-upstream.js'
import type { Kernel } from '../../../kernel/contract/kernel.js'
import type { BytesReply } from '../../../kernel/contract/reply.js'
import { speechTestConfigDir } from './audio-config.js'

const test = suite('plugin speech (isolation, scripted speech server)')
let upstream: FakeUpstream
let kernel: Kernel

test.before(async () => {
  upstream = await startFakeUpstream()
  kernel = makeKernel({ simulatorUrl: upstream.url, configDir: speechTestConfigDir() })
})
test.after(async () => upstream.close())

const stateFor = (id: string) => ({ model: { requested: id, model: kernel.catalog.model(id)! } })
const pcmOf = (samples: number) => {
  const b = Buffer.alloc(samples * 2)
  for (let i = 0; i < samples; i++) b.writeInt16LE((i % 200) * 100 - 10000, i * 2)
  return b
}
const servePcm = (pcm: Buffer) =>
  upstream.handle((_req, _b, res) => res.writeHead(200, { 'content-type': 'audio/pcm' }).end(pcm))
const lastSent = () => upstream.received.at(-1)!.body as Record<string, unknown>

async function drain(run: Run): Promise<Buffer> {
  const data = (run.reply as BytesReply).data
  if (data instanceof Uint8Array) return Buffer.from(data)
  const parts: Buffer[] = []
  for await (const c of data) parts.push(Buffer.from(c))
  return Buffer.concat(parts)
}

test('asks the streaming server for PCM as a stream, with its served name and the mapped voice; instructions dropped', async () => {
  servePcm(pcmOf(4800))
  const run = await runPlugin(
    speech,
    {},
    {
      kernel,
      state: stateFor('sim-orpheus'),
      body: {
        model: 'sim-orpheus',
        input: 'Hi there',
        voice: 'alloy',
        response_format: 'pcm',
        instructions: 'be calm',
      },
    },
  )
  assert.is(run.error, undefined)
  assert.equal(lastSent(), {
    model: 'sim-orpheus',
    input: 'Hi there',
    voice: 'tara',
    response_format: 'pcm',
    stream: true,
  })
  assert.is(upstream.received.at(-1)!.path, '/v1/audio/speech')
  assert.is((run.reply as BytesReply).contentType, 'audio/pcm')
  assert.ok((await drain(run)).equals(pcmOf(4800)))
  assert.equal(run.ex.state.speech?.usage, {
    input_tokens: 2,
    output_tokens: Math.ceil((4800 * 7) / 2048),
    total_tokens: 2 + Math.ceil((4800 * 7) / 2048),
  })
})

test('multilingual model: language spelled as the server wants (Title case), instructions and speed passed', async () => {
  servePcm(pcmOf(100))
  const run = await runPlugin(
    speech,
    {},
    {
      kernel,
      state: stateFor('sim-qwen3-tts'),
      body: {
        input: 'Salut',
        voice: 'Vivian',
        language: 'FRENCH',
        instructions: 'whisper',
        speed: 1.2,
        response_format: 'wav',
      },
    },
  )
  assert.is(run.error, undefined)
  assert.equal(lastSent(), {
    model: 'sim-qwen3-tts',
    input: 'Salut',
    voice: 'vivian',
    response_format: 'pcm',
    speed: 1.2,
    language: 'French',
    instructions: 'whisper',
  })
  const wav = await drain(run)
  assert.is(wav.readUInt32LE(40), 200, 'a whole file gets its true data size')
  assert.ok(wav.subarray(44).equals(pcmOf(100)))
})

test('refusals are answered before the server is called', async () => {
  const before = upstream.received.length
  const cases: [Record<string, unknown>, string][] = [
    [{ input: 'x', response_format: 'mp3', stream_format: 'sse' }, 'Streaming needs response_format pcm or wav'],
    [{ input: 'x', response_format: 'flac', stream: true }, 'Streaming needs response_format pcm or wav'],
    [
      { input: 'x', speed: 0.5 },
      'speed 0.5 is not supported by model sim-orpheus: it speaks only at speed 1.0 (leave speed out or send 1.0)',
    ],
    [{ input: '😀'.repeat(20_001) }, 'input is too long: 20001 characters (maximum 20000 for model sim-orpheus)'],
    [
      { input: 'x', voice: 'nobody' },
      'voice nobody is not available for model sim-orpheus; use one of tara, leah, jess, leo, dan, mia, zac, zoe (or one of alloy, ash, ballad, coral, echo, fable, onyx, nova, sage, shimmer, verse, marin, cedar)',
    ],
    [{ input: 'x', language: 'german' }, 'language german is not one of auto, english for model sim-orpheus'],
  ]
  for (const [body, message] of cases) {
    const run = await runPlugin(speech, {}, { kernel, state: stateFor('sim-orpheus'), body })
    assert.is(run.error?.status, 400, message)
    assert.is(run.error?.message, message)
  }
  assert.is(upstream.received.length, before)
  // Characters are code points: 20,000 emoji (40,000 UTF-16 units) are within the limit.
  servePcm(pcmOf(2))
  const ok = await runPlugin(
    speech,
    {},
    { kernel, state: stateFor('sim-orpheus'), body: { input: '😀'.repeat(20_000), response_format: 'pcm' } },
  )
  assert.is(ok.error, undefined)
})

test("the server's own error passes through with its status and message", async () => {
  upstream.handle((_req, _b, res) =>
    res
      .writeHead(400, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: { message: "Invalid voice 'x'", type: 'BadRequestError', code: 400 } })),
  )
  const run = await runPlugin(
    speech,
    {},
    { kernel, state: stateFor('sim-orpheus'), body: { input: 'Hello', response_format: 'pcm' } },
  )
  assert.is(run.error?.status, 400)
  assert.is(run.error?.message, "Invalid voice 'x'")
})

test('SSE: delta events of whole samples, at most sse_chunk_bytes each, then done with usage', async () => {
  servePcm(pcmOf(1001))
  const run = await runPlugin(
    speech,
    { sse_chunk_bytes: 500 },
    { kernel, state: stateFor('sim-orpheus'), body: { input: 'Hello', response_format: 'pcm', stream_format: 'sse' } },
  )
  assert.is(run.error, undefined)
  const events = run.events!
  const deltas = events.slice(0, -1)
  assert.ok(deltas.every((e) => e.type === 'speech.audio.delta'))
  const sizes = deltas.map((e) => Buffer.from(e.audio as string, 'base64').length)
  assert.ok(
    sizes.every((n) => n <= 500 && n % 2 === 0),
    String(sizes),
  )
  assert.ok(Buffer.concat(deltas.map((e) => Buffer.from(e.audio as string, 'base64'))).equals(pcmOf(1001)))
  assert.equal(events.at(-1), {
    type: 'speech.audio.done',
    usage: { input_tokens: 2, output_tokens: 4, total_tokens: 6 },
  })
  assert.is(run.outcome?.kind, 'done')
})

test('a stream cut by the server mid-way fails the reply (502), it does not end as if complete', async () => {
  upstream.handle((_req, _b, res) => {
    res.writeHead(200, { 'content-type': 'audio/pcm' })
    res.write(pcmOf(1000), () => res.destroy())
  })
  const run = await runPlugin(
    speech,
    {},
    { kernel, state: stateFor('sim-orpheus'), body: { input: 'Hello', response_format: 'pcm' } },
  )
  try {
    await drain(run)
    assert.unreachable('should fail')
  } catch (err) {
    assert.is((err as { status?: number }).status, 502)
  }
})

test('a WAV-only server: its header is stripped (past a LIST chunk) and the gateway writes its own', async () => {
  const pcm = pcmOf(300)
  const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([4, 0, 0, 0]), Buffer.from('INFO')])
  const head = Buffer.alloc(36)
  head.write('RIFF', 0)
  head.writeUInt32LE(0xffffffff, 4)
  head.write('WAVEfmt ', 8)
  head.writeUInt32LE(16, 16)
  head.writeUInt16LE(1, 20)
  head.writeUInt16LE(1, 22)
  head.writeUInt32LE(24000, 24)
  head.writeUInt32LE(48000, 28)
  head.writeUInt16LE(2, 32)
  head.writeUInt16LE(16, 34)
  const data = Buffer.concat([Buffer.from('data'), Buffer.from([0xff, 0xff, 0xff, 0xff])])
  upstream.handle((_req, _b, res) => {
    res.writeHead(200, { 'content-type': 'audio/wav' })
    // Split inside the header, to show it is read across chunks.
    res.write(head.subarray(0, 20))
    res.end(Buffer.concat([head.subarray(20), list, data, pcm]))
  })
  const run = await runPlugin(
    speech,
    {},
    { kernel, state: stateFor('wav-only-tts'), body: { input: 'Hello', voice: 'leo', response_format: 'pcm' } },
  )
  assert.is(run.error, undefined)
  assert.is(lastSent().response_format, 'wav')
  assert.ok((await drain(run)).equals(pcm))
})

test('a WAV-only server at the wrong sample rate is a 502 that says so', async () => {
  const head = Buffer.alloc(44)
  head.write('RIFF', 0)
  head.write('WAVEfmt ', 8)
  head.writeUInt32LE(16, 16)
  head.writeUInt16LE(1, 20)
  head.writeUInt16LE(1, 22)
  head.writeUInt32LE(22050, 24)
  head.writeUInt16LE(16, 34)
  head.write('data', 36)
  upstream.handle((_req, _b, res) => res.writeHead(200).end(Buffer.concat([head, pcmOf(10)])))
  const run = await runPlugin(
    speech,
    {},
    { kernel, state: stateFor('wav-only-tts'), body: { input: 'Hello', response_format: 'pcm' } },
  )
  assert.is(run.error?.status, 502)
  assert.match(run.error!.message, /^upstream sent unusable audio: WAV of 1 channel\(s\), 16-bit, 22050 Hz/)
})

test('a format the server encodes itself passes through untouched', async () => {
  upstream.handle((_req, _b, res) =>
    res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(Buffer.from('ID3-not-really-mp3')),
  )
  const run = await runPlugin(
    speech,
    {},
    { kernel, state: stateFor('mp3-tts'), body: { input: 'Hello', response_format: 'mp3' } },
  )
  assert.is(run.error, undefined)
  assert.is(lastSent().response_format, 'mp3')
  assert.is((run.reply as BytesReply).contentType, 'audio/mpeg')
  assert.is((await drain(run)).toString(), 'ID3-not-really-mp3')
})

test("mp3, opus and flac are made by the gateway from the server's PCM", async () => {
  for (const [format, type, magic] of [
    ['mp3', 'audio/mpeg', 'fff3'],
    ['opus', 'audio/ogg; codecs=opus', Buffer.from('OggS').toString('hex')],
    ['flac', 'audio/flac', Buffer.from('fLaC').toString('hex')],
  ]) {
    servePcm(pcmOf(24000))
    const run = await runPlugin(
      speech,
      {},
      { kernel, state: stateFor('sim-orpheus'), body: { input: 'Hello', response_format: format } },
    )
    assert.is(run.error, undefined, format)
    assert.is(lastSent().response_format, 'pcm', format)
    assert.is((run.reply as BytesReply).contentType, type)
    assert.is((await drain(run)).subarray(0, 4).toString('hex').slice(0, magic!.length), magic, format)
  }
})

test('options are validated as the loader does', async () => {
  try {
    await runPlugin(speech, { sse_chunk_bytes: 1 }, { kernel, state: stateFor('sim-orpheus'), body: { input: 'x' } })
    assert.unreachable()
  } catch (err) {
    assert.match((err as Error).message, /bad options: \/sse_chunk_bytes/)
  }
  // The encoder programs of earlier versions are gone: naming them is an error, not ignored.
  try {
    await runPlugin(
      speech,
      { encoders: { mp3: 'lame' } },
      { kernel, state: stateFor('sim-orpheus'), body: { input: 'x' } },
    )
    assert.unreachable()
  } catch (err) {
    assert.match((err as Error).message, /bad options: .*encoders/)
  }
})

test.run()
