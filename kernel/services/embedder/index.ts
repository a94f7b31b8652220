/**
 * The embedded embedder, started on a loopback port when some backend's url is
 * `embedded-embedder`. It serves one model, the Universal Sentence Encoder lite, under the
 * name `use-lite`; the model itself loads on the first request (embedder-worker.ts).
 */
import type { AddressInfo } from 'node:net'
import { EmbedderWorker } from './embedder-worker.js'
import { createEmbedderServer } from './server.js'

export const EMBEDDER_URL = 'embedded-embedder'
export const EMBEDDER_MODEL = 'use-lite'

export interface RunningEmbedder {
  /** Base URL without /v1. */
  url: string
  /** Tests only: the next job hangs its thread until its deadline. */
  hangNextJob(): void
  /** Tests only: the threads running now. */
  running(): number
  close(): Promise<void>
}

/**
 * `deadlineMs`: the longest a job may take before its thread is restarted and the job gets 504;
 * `threads`: the pool's size; `idleMs`: how long a thread past the first is kept without a job (the first, ten times that; 0: always).
 */
export async function startEmbedder(
  options: { host?: string; port?: number; deadlineMs?: number; threads?: number; idleMs?: number } = {},
): Promise<RunningEmbedder> {
  const worker = new EmbedderWorker(options.deadlineMs ?? 60_000, options.threads, options.idleMs)
  const server = createEmbedderServer(worker, EMBEDDER_MODEL)
  const host = options.host ?? '127.0.0.1'
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => resolve())
  })
  const url = `http://${host}:${(server.address() as AddressInfo).port}`
  return {
    url,
    hangNextJob: () => worker.hangNextJob(),
    running: () => worker.running(),
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeAllConnections()
      await closed
      await worker.close()
    },
  }
}
