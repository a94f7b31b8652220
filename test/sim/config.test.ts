import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  loadSimConfig,
  SimConfigError,
  startSimulator,
  validateSimConfig,
  type RunningSimulator,
} from '../../sim/index.js'

const config = suite<{ sim?: RunningSimulator }>('sim: config schema and loading')

config.after(async (ctx) => {
  await ctx.sim?.close()
})

/** dist/test/sim → the repository root */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..')

config('defaults are filled in and the input is left alone', () => {
  const input = { models: [{ name: 'm' }] }
  const resolved = validateSimConfig(input)
  assert.equal(input, { models: [{ name: 'm' }] })
  assert.equal(resolved.latency, { ttft_ms: 0, itl_ms: 0, jitter: 0, prefill_ms_per_token: 0 })
  assert.is(resolved.max_running, 8)
  assert.is(resolved.max_waiting, 1000)
  assert.is(resolved.failure.rate, 0)
  const model = resolved.models[0]
  assert.ok(model)
  assert.is(model.kind, 'chat')
  assert.is(model.reasoning, 'none')
  assert.is(model.reasoning_field, 'reasoning')
  assert.is(model.embedding_dims, 384)
  assert.is(model.latency_factor, 1)
})

config('invalid configs are refused with the reason', () => {
  assert.throws(
    () => validateSimConfig({ models: [{ name: 'm' }], latency: { jitter: 0.5 } }),
    (err: unknown) => err instanceof SimConfigError && /jitter/.test(err.message),
  )
  const refused = (err: unknown): boolean => err instanceof SimConfigError
  assert.throws(() => validateSimConfig({ models: [{ name: 'm', colour: 'red' }] }), refused)
  assert.throws(() => validateSimConfig({ models: [] }), refused)
  assert.throws(() => validateSimConfig({ models: [{ name: 'm' }, { name: 'm' }] }), /listed twice/)
  assert.throws(() => validateSimConfig({ models: [{ name: 'm' }], failure: { types: ['meteor'] } }), refused)
  assert.throws(() => validateSimConfig({ models: [{ name: 'm', latency_factor: -1 }] }), refused)
})

config('config/simulator.yaml: the served names the catalog relies on', () => {
  const resolved = loadSimConfig(path.join(repoRoot, 'config', 'simulator.yaml'))
  assert.equal(
    resolved.models.map((m) => m.name),
    [
      'sim-instruct-8b',
      'sim-thinker-8b',
      'sim-vision-7b',
      'sim-tools-8b',
      'sim-text-3b',
      'sim-text-3b-plain',
      'sim-legacy-chat',
      'sim-draft-1b',
      'sim-large-70b',
      'sim-embed-384',
      'sim-rerank',
      'sim-orpheus',
      'sim-qwen3-tts',
      'sim-whisper',
      'sim-parakeet',
      'sim-image',
    ],
  )
  const byName = new Map(resolved.models.map((m) => [m.name, m]))
  assert.is(byName.get('sim-instruct-8b')?.completions, true)
  assert.is(byName.get('sim-thinker-8b')?.reasoning, 'thinking')
  assert.is(byName.get('sim-thinker-8b')?.thinking_default, true)
  assert.is(byName.get('sim-thinker-8b')?.reasoning_field, 'reasoning')
  assert.is(byName.get('sim-vision-7b')?.thinking_default, false)
  assert.is(byName.get('sim-vision-7b')?.reasoning_field, 'reasoning_content')
  assert.equal(
    [byName.get('sim-draft-1b')?.latency_factor, byName.get('sim-large-70b')?.latency_factor],
    [0.4, 4],
    'the speculation pair: a fast draft, a slow large model',
  )
  assert.is(byName.get('sim-embed-384')?.kind, 'embedding')
  assert.is(byName.get('sim-rerank')?.kind, 'rerank')
  assert.is(byName.get('sim-orpheus')?.kind, 'speech')
  assert.equal(
    [byName.get('sim-orpheus')?.audio.first_audio_ms, byName.get('sim-orpheus')?.audio.realtime_factor],
    [300, 1.8],
  )
  assert.is(byName.get('sim-qwen3-tts')?.audio.streaming, false)
  assert.is(byName.get('sim-whisper')?.kind, 'transcription')
  assert.is(byName.get('sim-image')?.kind, 'image')
  assert.equal(byName.get('sim-image')?.image.sizes, ['1024x1024', '512x512', '256x256'])
  assert.equal(resolved.latency, { ttft_ms: 30, itl_ms: 5, jitter: 0.1, prefill_ms_per_token: 0 })
  assert.is(resolved.max_running, 8)
})

config('startSimulator listens on an ephemeral loopback port', async (ctx) => {
  ctx.sim = await startSimulator({ models: [{ name: 'only' }] })
  assert.match(ctx.sim.url, /^http:\/\/127\.0\.0\.1:\d+$/)
  assert.ok(ctx.sim.port > 0)
  assert.is(ctx.sim.url, `http://127.0.0.1:${ctx.sim.port}`)
  const res = await fetch(`${ctx.sim.url}/health`)
  assert.is(res.status, 200)
})

config.run()
