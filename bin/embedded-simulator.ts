/**
 * The embedded default's model servers: the simulator (sim/), started in its own worker thread
 * on a loopback port when some backend's url is `embedded`, and loaded only then. Nothing a
 * client asks of a simulated model runs on the gateway's event loop (sim/thread.ts).
 */
import path from 'node:path'
import type { Deployment } from '../kernel/contract/kernel.js'
import type { Logger } from '../kernel/contract/log.js'
import type { SimulatorThread } from '../sim/thread.js'

export async function startEmbeddedSimulator(
  deployment: Deployment,
  log: Logger,
): Promise<SimulatorThread | undefined> {
  const wanted = Object.values(deployment.models.backends).some((b) => b.url === 'embedded')
  const settings = deployment.server.simulator
  if (!settings.enabled || !wanted) return undefined
  const [{ loadSimConfig }, { startSimulatorThread }] = await Promise.all([
    import('../sim/config-file.js'),
    import('../sim/thread.js'),
  ])
  const simulator = await startSimulatorThread(
    loadSimConfig(path.join(deployment.configDir, settings.config ?? 'simulator.yaml')),
    {
      host: '127.0.0.1',
      port: 0,
      heapMb: settings.heap_mb,
      log: (line) => log.error('simulator', { line }),
    },
  )
  log.info('simulator started', { url: simulator.url, thread: true })
  return simulator
}
