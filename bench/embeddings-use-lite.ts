/**
 * The real embedding model, `use-lite`, in the in-process embedder (kernel/services/embedder/):
 * the first request (which loads the model), then per-text latency one text at a time and the
 * throughput of batches, with the main thread's worst event-loop delay meanwhile (the model
 * runs in a worker thread, so that delay should stay small whatever the batch).
 *
 *   npm run bench -- embeddings --model use-lite   (or: node dist/bench/embeddings.js --model use-lite [--rounds 3])
 */
import os from 'node:os'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { startEmbedder } from '../kernel/services/embedder/index.js'
import { median, option } from './bench-setup.js'

const ROUNDS = option('rounds', 3)
const text = (i: number) =>
  `Passage number ${i} of the benchmark, a sentence or two long, about ${['rivers', 'taxes', 'cats', 'engines'][i % 4]}.`

export async function benchUseLite(): Promise<void> {
  const embedder = await startEmbedder()
  const post = async (input: string | string[]): Promise<number> => {
    const t = performance.now()
    const res = await fetch(`${embedder.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'use-lite', input, encoding_format: 'base64' }),
    })
    if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`)
    await res.arrayBuffer()
    return performance.now() - t
  }
  console.log(
    `use-lite (Universal Sentence Encoder lite) in the embedded embedder: ${os.cpus().length} cores, node ${process.version}, medians of ${ROUNDS} rounds\n`,
  )
  console.log(`first request (loads the model in the worker): ${(await post('warm up')).toFixed(0)} ms`)
  await post(Array.from({ length: 32 }, (_, i) => text(i)))
  const loop = monitorEventLoopDelay({ resolution: 5 })
  loop.enable()
  const singles: number[] = []
  for (let i = 0; i < 30 * ROUNDS; i++) singles.push(await post(text(i)))
  console.log(`one text at a time: p50 ${median(singles).toFixed(1)} ms per request`)
  for (const size of [8, 32, 64, 256]) {
    const times: number[] = []
    for (let r = 0; r < ROUNDS; r++) times.push(await post(Array.from({ length: size }, (_, i) => text(i + r))))
    const ms = median(times)
    console.log(
      `batch of ${String(size).padStart(3)}: ${ms.toFixed(0).padStart(5)} ms, ${(ms / size).toFixed(1)} ms per text, ${((size * 1000) / ms).toFixed(0)} texts/s`,
    )
  }
  loop.disable()
  console.log(
    `\nmain-thread event-loop delay meanwhile: p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms, worst ${(loop.max / 1e6).toFixed(1)} ms`,
  )
  await embedder.close()
}
