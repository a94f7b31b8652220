import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { performance } from 'node:perf_hooks'
import type OpenAI from 'openai'
import type { TestGateway } from '../support/gateway.js'
import { syntheticSamples } from '../support/audio.js'
import { msPerChar, startAudioGateway } from './audio-gateway.js'

const test = suite('e2e speech capacity: 8 streams per streaming speech server, the rest wait')
let gw: TestGateway
let client: OpenAI

test.before(async () => {
  gw = await startAudioGateway()
  client = gw.openai()
})
test.after(async () => gw.close())

interface StreamLog {
  firstByteAt: number
  endAt: number
  bytes: number
}

const input = 'Nine voices speak at once, but only eight can.'

async function stream(headers: Record<string, string>): Promise<StreamLog> {
  const res = await client.audio.speech.create(
    { model: 'sim-orpheus', voice: 'zoe', input, response_format: 'pcm' },
    { headers },
  )
  const reader = res.body!.getReader()
  let firstByteAt = -1
  let bytes = 0
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    if (firstByteAt < 0) firstByteAt = performance.now()
    bytes += value.length
  }
  return { firstByteAt, endAt: performance.now(), bytes }
}

test('nine concurrent streams against 8 slots: all nine complete, the ninth starts only when a slot is freed', async () => {
  const orpheus = async () => (await gw.simulator!.stats()).models['sim-orpheus']!
  let maxRunning = 0
  let polling = true
  const poll = (async () => {
    while (polling) {
      maxRunning = Math.max(maxRunning, (await orpheus()).running)
      await new Promise((r) => setTimeout(r, 1))
    }
  })()
  // Eight streams take the eight slots and hold them: their first audio comes 800 ms after they start.
  const eight = Array.from({ length: 8 }, () =>
    stream({ 'x-sim-first-audio-ms': '800', 'x-sim-realtime-factor': '40' }),
  )
  while ((await orpheus()).running < 8) await new Promise((r) => setTimeout(r, 1))
  // The ninth comes while all eight run. It waits (in the gateway's fair queue, which keeps the
  // backend to its capacity of 8, or in the server's own line without it) and is not refused.
  const ninth = await stream({ 'x-sim-first-audio-ms': '0', 'x-sim-realtime-factor': '40' })
  const logs = await Promise.all(eight)
  polling = false
  await poll

  const expected = syntheticSamples(input, msPerChar('sim-orpheus')) * 2
  assert.ok(
    [...logs, ninth].every((l) => l.bytes === expected),
    'all nine streams complete, with all their audio',
  )
  assert.is(maxRunning, 8, 'the server ran 8 at once, never more')
  const firstEnd = Math.min(...logs.map((l) => l.endAt))
  assert.ok(ninth.firstByteAt > firstEnd, 'the ninth stream got its first audio only after one of the eight had ended')
})

test.run()
