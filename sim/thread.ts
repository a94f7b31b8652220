/**
 * The simulator in its own worker thread, serving HTTP on its own loopback port: what the
 * embedded default starts (bin/embedded-simulator.ts). Generation, logprobs and tokenizing run
 * on the thread's event loop, never on the caller's, and the thread's heap is bounded
 * (`heapMb`). A thread that dies (its heap full) is started again on the same port; requests
 * it was serving fail as a crashed model server's do. Counters come by message (`stats()`).
 */
import { Worker } from 'node:worker_threads'
import type { SimulatorStats } from './index.js'
import type { SimConfigInput } from './schema.js'
import type { ThreadData, ThreadReply, ThreadRequest } from './thread-messages.js'

export interface SimulatorThread {
  /** Base URL without /v1, e.g. http://127.0.0.1:41234 */
  readonly url: string
  readonly port: number
  /** The simulator's counters, asked of its thread. */
  stats(): Promise<SimulatorStats>
  /** Asks the thread for a full garbage collection (a no-op without --expose-gc). */
  reclaim(): void
  close(): Promise<void>
}

export interface ThreadOptions {
  /** Default 127.0.0.1. */
  host?: string
  /** Default 0: an ephemeral port (kept across restarts). */
  port?: number
  /** The thread's old-generation heap, in MB (default 1024); past it the thread dies and is restarted. */
  heapMb?: number
  /** Unexpected errors and restarts; default stderr. */
  log?: (line: string) => void
}

interface Started {
  worker: Worker
  url: string
  port: number
  exited: Promise<void>
}

/** Starts the thread and resolves once its server listens (or rejects with why it could not). */
function startThread(data: ThreadData, heapMb: number, log: (line: string) => void): Promise<Started> {
  const worker = new Worker(new URL('./thread-main.js', import.meta.url), {
    workerData: data,
    resourceLimits: { maxOldGenerationSizeMb: heapMb },
  })
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
  return new Promise((resolve, reject) => {
    const onExit = (code: number) => reject(new Error(`the simulator thread exited (code ${code}) before listening`))
    worker.once('error', reject)
    worker.once('exit', onExit)
    worker.on('message', (reply: ThreadReply) => {
      if (reply.kind === 'log') log(reply.line)
      else if (reply.kind === 'failed') reject(new Error(reply.message))
      else if (reply.kind === 'listening') {
        worker.off('error', reject)
        worker.off('exit', onExit)
        resolve({ worker, url: reply.url, port: reply.port, exited })
      }
    })
  })
}

export async function startSimulatorThread(
  config: SimConfigInput,
  options: ThreadOptions = {},
): Promise<SimulatorThread> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  const heapMb = options.heapMb ?? 1024
  const host = options.host ?? '127.0.0.1'
  let current = await startThread({ config, host, port: options.port ?? 0 }, heapMb, log)
  const { url, port } = current
  const asked = new Map<number, { resolve: (s: SimulatorStats) => void; reject: (e: Error) => void }>()
  let nextId = 1
  let closing: Promise<void> | undefined

  const watch = (started: Started): void => {
    started.worker.on('message', (reply: ThreadReply) => {
      if (reply.kind !== 'stats') return
      asked.get(reply.id)?.resolve(reply.stats)
      asked.delete(reply.id)
    })
    started.worker.on('error', (err) => log(`sluice-sim: the simulator thread failed: ${err.message}`))
    started.worker.once('exit', (code) => {
      for (const p of asked.values()) p.reject(new Error(`the simulator thread exited (code ${code})`))
      asked.clear()
      if (closing) return
      // Died under load (its heap full, an uncaught error): the same server again, on the same port.
      log(`sluice-sim: the simulator thread exited (code ${code}); starting it again on port ${port}`)
      startThread({ config, host, port }, heapMb, log).then(
        (next) => {
          // Closed while it restarted: the new thread ends at once.
          if (closing) return void next.worker.terminate()
          current = next
          watch(next)
        },
        (err: unknown) =>
          log(`sluice-sim: the simulator could not be started again: ${err instanceof Error ? err.message : err}`),
      )
    })
  }
  watch(current)

  return {
    url,
    port,
    stats: () =>
      new Promise<SimulatorStats>((resolve, reject) => {
        // A thread id of -1: the thread has ended (and could not be started again).
        if (current.worker.threadId === -1) return reject(new Error('the simulator thread is not running'))
        const id = nextId++
        asked.set(id, { resolve, reject })
        current.worker.postMessage({ kind: 'stats', id } satisfies ThreadRequest)
      }),
    reclaim: () => {
      if (current.worker.threadId !== -1) current.worker.postMessage({ kind: 'reclaim' } satisfies ThreadRequest)
    },
    close: () => {
      closing ??= (async () => {
        const { worker, exited } = current
        // A thread that does not end on its own soon (a reply still being built) is stopped.
        const force = setTimeout(() => void worker.terminate(), 5000)
        worker.postMessage({ kind: 'close' } satisfies ThreadRequest)
        await exited
        clearTimeout(force)
      })()
      return closing
    },
  }
}
