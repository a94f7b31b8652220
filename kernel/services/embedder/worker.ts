/**
 * One of the embedder's worker threads: the model runs here so that a batch (about 14 ms a
 * text on one CPU) never holds the gateway's event loop. Jobs arrive one at a time from
 * embedder-worker.ts and are answered in order; the model loads on the first job.
 */
import { parentPort } from 'node:worker_threads'
import { loadUseLite, type SentenceEncoder } from './use-lite-model.js'
import type { WorkerJob, WorkerReply, WorkerStarted } from './worker-messages.js'

/** Texts per forward pass: bounds the tensors' memory; larger batches gain little (measured in docs/performance.md). */
const BATCH = 32

if (!parentPort) throw new Error('embedder worker started outside a worker thread')
const port = parentPort

let model: Promise<SentenceEncoder> | undefined

async function run(job: WorkerJob): Promise<WorkerReply & { ok: true }> {
  // Loaded and warmed by one pass (the first is several times slower): neither is under a deadline.
  model ??= loadUseLite().then((m) => m.embed(['warm']).then(() => m))
  const m = await model
  port.postMessage({ id: job.id, started: true } satisfies WorkerStarted)
  if (job.hang) for (;;);
  const tokens = job.texts.map((t) => m.tokenize(t))
  if (job.kind === 'tokenize' || tokens.some((ids) => ids.length > (job.maxTokens ?? Infinity)))
    return { id: job.id, ok: true, tokens, vectors: [] }
  // A pass pads every text to its longest, so texts go in by length: about 20% less work on
  // windows of mixed lengths (docs/performance.md, "Ingestion"). Vectors return in the job's order.
  const order = tokens.map((_, i) => i).sort((a, b) => tokens[a]!.length - tokens[b]!.length)
  const vectors: Float32Array[] = []
  for (let i = 0; i < order.length; i += BATCH) {
    const batch = order.slice(i, i + BATCH)
    const out = await m.embed(
      batch.map((j) => job.texts[j]!),
      batch.map((j) => tokens[j]!),
    )
    batch.forEach((j, k) => (vectors[j] = Float32Array.from(out[k]!)))
  }
  return { id: job.id, ok: true, tokens, vectors }
}

port.on('message', (job: WorkerJob) => {
  run(job).then(
    (reply) =>
      port.postMessage(
        reply,
        reply.vectors.map((v) => v.buffer as ArrayBuffer),
      ),
    (err: unknown) =>
      port.postMessage({
        id: job.id,
        ok: false,
        error: err instanceof Error ? err.message : String(err),
      } satisfies WorkerReply),
  )
})
