/**
 * The embedded default's in-process model servers, each started on a loopback port only when
 * some backend's url names it: `embedded` (the simulator, embedded-simulator.ts) and
 * `embedded-embedder` (the real sentence encoder, kernel/services/embedder/).
 */
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
    embedder = await startEmbedder({ deadlineMs: deployment.server.embedder.deadline_ms }).catch(
      async (err: unknown) => {
        await simulator?.close()
        throw err
      },
    )
    log.info('embedder started; its model loads on the first request', { url: embedder.url })
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
