import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { performance } from 'node:perf_hooks'
import { startSimulator, type RunningSimulator, type SimConfigInput } from '../../sim/index.js'
import { hasProgram, parseWav, rms, syntheticSamples } from '../support/audio.js'

const test = suite<{ sim: RunningSimulator }>('sim: speech (POST /v1/audio/speech, GET /v1/audio/voices)')

const models: SimConfigInput['models'] = [
  { name: 'orpheus', kind: 'speech', audio: { streaming: true, ms_per_char: 50 } },
  {
    name: 'qwen-tts',
    kind: 'speech',
    audio: { streaming: false, voices: ['vivian', 'ryan'], languages: ['english', 'french'], ms_per_char: 60 },
  },
  { name: 'chat', kind: 'chat' },
]

test.before(async (ctx) => {
  ctx.sim = await startSimulator({ models, max_running: 8 })
})
test.after(async (ctx) => ctx.sim.close())

const speak = (sim: RunningSimulator, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${sim.url}/v1/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })

test('pcm: 24 kHz s16le, as long as the documented pace of the synthetic voice, not silence', async ({ sim }) => {
  const input = 'Hello, world <sigh> again.'
  const res = await speak(sim, { model: 'orpheus', input, voice: 'leo', response_format: 'pcm' })
  assert.is(res.status, 200)
  assert.is(res.headers.get('content-type'), 'audio/pcm')
  const pcm = Buffer.from(await res.arrayBuffer())
  assert.is(pcm.length, syntheticSamples(input, 50) * 2)
  assert.ok(rms(pcm) > 0.01)
})

test('deterministic per text and voice; voices differ', async ({ sim }) => {
  const a = Buffer.from(
    await (
      await speak(sim, { model: 'orpheus', input: 'Same text', voice: 'tara', response_format: 'pcm' })
    ).arrayBuffer(),
  )
  const b = Buffer.from(
    await (
      await speak(sim, { model: 'orpheus', input: 'Same text', voice: 'tara', response_format: 'pcm' })
    ).arrayBuffer(),
  )
  const c = Buffer.from(
    await (
      await speak(sim, { model: 'orpheus', input: 'Same text', voice: 'zac', response_format: 'pcm' })
    ).arrayBuffer(),
  )
  assert.ok(a.equals(b))
  assert.not.ok(a.equals(c))
})

test('a streaming model streams: a WAV header with unknown sizes first, then chunks as they are made', async ({
  sim,
}) => {
  const input = 'Streaming speech arrives in pieces over time'
  const res = await speak(
    sim,
    { model: 'orpheus', input, response_format: 'wav' },
    { 'x-sim-first-audio-ms': '20', 'x-sim-realtime-factor': '8' },
  )
  const reader = res.body!.getReader()
  const chunks: Buffer[] = []
  let runningAtFirst = -1
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    if (chunks.length === 0) runningAtFirst = sim.stats().models.orpheus!.running
    chunks.push(Buffer.from(value))
  }
  const wav = parseWav(Buffer.concat(chunks))
  assert.equal([wav.sampleRate, wav.channels, wav.bitsPerSample, wav.dataSize], [24000, 1, 16, 0xffffffff])
  assert.is(wav.pcm.length, syntheticSamples(input, 50) * 2)
  assert.ok(chunks.length >= 5, `${chunks.length} reads`)
  assert.is(runningAtFirst, 1, 'the first bytes left while the request was still running')
})

test('a whole-file model answers once, with a content-length and the true WAV sizes; speed shortens it', async ({
  sim,
}) => {
  const input = 'Bonjour le monde'
  const res = await speak(sim, { model: 'qwen-tts', input, voice: 'RYAN', language: 'French', response_format: 'wav' })
  const body = Buffer.from(await res.arrayBuffer())
  assert.is(Number(res.headers.get('content-length')), body.length)
  const wav = parseWav(body)
  assert.is(wav.dataSize, wav.pcm.length)
  assert.is(wav.pcm.length, syntheticSamples(input, 60) * 2)
  const fast = Buffer.from(
    await (await speak(sim, { model: 'qwen-tts', input, speed: 2, response_format: 'pcm' })).arrayBuffer(),
  )
  assert.is(fast.length, syntheticSamples(input, 30) * 2)
})

test("400s in vLLM's shape: an unknown voice, an unsupported format, a language it lacks, a chat model", async ({
  sim,
}) => {
  const cases: [Record<string, unknown>, string][] = [
    [
      { model: 'orpheus', input: 'x', voice: 'alloy' },
      "Invalid voice 'alloy'. Supported voices: tara, leah, jess, leo, dan, mia, zac, zoe",
    ],
    [
      { model: 'orpheus', input: 'x', response_format: 'mp3' },
      "Unsupported response_format 'mp3'. Supported: pcm, wav",
    ],
    [
      { model: 'qwen-tts', input: 'x', language: 'klingon' },
      "Unsupported language 'klingon'. Supported: Auto, english, french",
    ],
    [{ model: 'chat', input: 'x' }, 'The model does not support Speech API'],
  ]
  for (const [body, message] of cases) {
    const res = await speak(sim, body)
    assert.is(res.status, 400)
    assert.is(((await res.json()) as { error: { message: string } }).error.message, message)
  }
})

test("voices: vllm-omni's answer", async ({ sim }) => {
  const res = await fetch(`${sim.url}/v1/audio/voices?model=qwen-tts`)
  assert.equal(await res.json(), { voices: ['vivian', 'ryan'], uploaded_voices: [] })
})

test('max_running: nine streams against 8 slots; the ninth waits in line and starts when one ends', async ({ sim }) => {
  const text = 'Eight at once, then one more.'
  const orpheus = () => sim.stats().models.orpheus!
  const one = async (headers: Record<string, string>) => {
    const res = await speak(sim, { model: 'orpheus', input: text, response_format: 'pcm' }, headers)
    const reader = res.body!.getReader()
    let first = -1
    let bytes = 0
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      if (first < 0) first = performance.now()
      bytes += value.length
    }
    return { first, end: performance.now(), bytes }
  }
  // Eight hold the slots (first audio 500 ms after they start); the ninth comes once all run.
  const eight = Array.from({ length: 8 }, () => one({ 'x-sim-first-audio-ms': '500', 'x-sim-realtime-factor': '40' }))
  while (orpheus().running < 8) await new Promise((r) => setTimeout(r, 1))
  const ninth = one({ 'x-sim-first-audio-ms': '0', 'x-sim-realtime-factor': '40' })
  while (orpheus().waiting < 1) await new Promise((r) => setTimeout(r, 1))
  assert.equal([orpheus().running, orpheus().waiting], [8, 1], 'the ninth waits in line, not refused')
  const logs = await Promise.all(eight)
  const last = await ninth
  assert.ok([...logs, last].every((l) => l.bytes === syntheticSamples(text, 50) * 2))
  assert.ok(last.first > Math.min(...logs.map((l) => l.end)), 'it started only when a slot was freed')
})

const espeak = hasProgram('espeak-ng')
test(`engine espeak-ng: a real voice, 24 kHz, streamed ${espeak ? '' : '(espeak-ng is not installed: checked only for the 503)'}`, async () => {
  const sim = await startSimulator({ models: [{ name: 'espeak', kind: 'speech', audio: { engine: 'espeak-ng' } }] })
  try {
    const res = await speak(sim, {
      model: 'espeak',
      input: 'Hello from a real speech engine.',
      voice: 'leo',
      response_format: 'wav',
    })
    if (!espeak) {
      assert.is(res.status, 503)
      return
    }
    assert.is(res.status, 200)
    const wav = parseWav(Buffer.from(await res.arrayBuffer()))
    assert.equal([wav.sampleRate, wav.channels], [24000, 1])
    // espeak-ng says this in roughly two seconds; a real voice, not silence.
    const seconds = wav.pcm.length / 48000
    assert.ok(seconds > 1 && seconds < 5, `${seconds} s`)
    assert.ok(rms(wav.pcm) > 0.01)
  } finally {
    await sim.close()
  }
})

test.run()
