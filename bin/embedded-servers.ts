/**
 * The embedded default's in-process model servers, each started on a loopback port only when
 * some backend's url names it: `embedded` (the simulator, embedded-simulator.ts) and
 * `embedded-embedder` (the real sentence encoder, kernel/services/embedder/).
 */
import os from 'node:os'
import type { Deployment } from '../kernel/contract/kernel.js'
import type { Logger } from '../kernel/contract/log.js'
import type { CatalogOptions } from '../kernel/services/catalog/catalog.js'
import { EMBEDDER_URL, startEmbedder, type RunningEmbedder } from '../kernel/services/embedder/index.js'
import { startEmbeddedSimulator } from './embedded-simulator.js'

// Named through its starter, so that sim/ stays imported in one place (test/kernel/import-rules.test.ts).
type SimulatorThread = NonNullable<Awaited<ReturnType<typeof startEmbeddedSimulator>>>

export interface EmbeddedServers {
  simulator?: SimulatorThread
  embedder?: RunningEmbedder
  /** For the catalog: base URLs by the name a backend's url gives them. */
  urls: NonNullable<CatalogOptions['embeddedUrls']>
  close(): Promise<void>
}

export async function startEmbeddedServers(deployment: Deployment, log: Logger): Promise<EmbeddedServers> {
  const simulator = await startEmbeddedSimulator(deployment, log)
  let embedder: RunningEmbedder | undefined
  if (Object.values(deployment.models.backends).some((b) => b.url === EMBEDDER_URL)) {
    const { deadline_ms, threads, idle_s } = deployment.server.embedder
    const idleMs = idle_s * 1000
    embedder = await startEmbedder({ deadlineMs: deadline_ms, threads: embedderThreads(threads), idleMs }).catch(
      async (err: unknown) => {
        await simulator?.close()
        throw err
      },
    )
    log.info('embedder started; its model loads on the first request, in each thread', { url: embedder.url })
  }
  return {
    simulator,
    embedder,
    urls: { embedded: simulator?.url, [EMBEDDER_URL]: embedder?.url },
    close: async () => {
      await Promise.all([simulator?.close(), embedder?.close()])
    },
  }
}

/**
 * `embedder.threads`, 0 meaning one per CPU up to 4: TensorFlow.js's WebAssembly backend runs a
 * model on one thread in Node, so a thread a core is how a batch uses the machine; past 4 a
 * thread's 100 MB buys little for a model this small.
 */
export function embedderThreads(configured: number): number {
  return configured > 0 ? configured : Math.min(os.availableParallelism(), 4)
}
