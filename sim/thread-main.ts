/**
 * The simulator inside a worker thread (sim/thread.ts starts it): the same server as
 * startSimulator, on its own event loop, so that what a client asks of a simulated model (a
 * long generation, thousands of logprobs, a tokenizer pass over megabytes) never holds the
 * event loop of the process that started it.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { startSimulator, type RunningSimulator } from './index.js'
import type { ThreadData, ThreadReply, ThreadRequest } from './thread-messages.js'

const port = parentPort
if (!port) throw new Error('sim/thread-main.js runs only in a worker thread')
const data = workerData as ThreadData

let sim: RunningSimulator | undefined

startSimulator(data.config, {
  host: data.host,
  port: data.port,
  log: (line) => port.postMessage({ kind: 'log', line } satisfies ThreadReply),
}).then(
  (running) => {
    sim = running
    port.postMessage({ kind: 'listening', url: running.url, port: running.port } satisfies ThreadReply)
  },
  (err: unknown) => {
    port.postMessage({
      kind: 'failed',
      message: err instanceof Error ? err.message : String(err),
    } satisfies ThreadReply)
    port.close()
  },
)

port.on('message', (request: ThreadRequest) => {
  // The gateway is quiet and its process grew: a full collection gives back what a large
  // generation left (only when the process runs with --expose-gc, as `npm start` does).
  if (request.kind === 'reclaim') return void (globalThis as { gc?: () => void }).gc?.()
  if (request.kind === 'stats') {
    if (sim) port.postMessage({ kind: 'stats', id: request.id, stats: sim.stats() } satisfies ThreadReply)
    return
  }
  // close: the server stops, then the port, which lets the thread end on its own.
  void (sim?.close() ?? Promise.resolve()).finally(() => {
    port.postMessage({ kind: 'closed' } satisfies ThreadReply)
    port.close()
  })
})
