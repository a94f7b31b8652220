/**
 * The embedded default's model servers: the simulator (sim/), started in-process on a loopback
 * port when some backend's url is `embedded`, and loaded only then.
 */
import path from 'node:path'
import type { Deployment } from '../kernel/contract/kernel.js'
import type { Logger } from '../kernel/contract/log.js'
import type { RunningSimulator } from '../sim/index.js'

export async function startEmbeddedSimulator(
  deployment: Deployment,
  log: Logger,
): Promise<RunningSimulator | undefined> {
  const wanted = Object.values(deployment.models.backends).some((b) => b.url === 'embedded')
  if (!deployment.server.simulator.enabled || !wanted) return undefined
  const { loadSimConfig, startSimulator } = await import('../sim/index.js')
  const simulator = await startSimulator(
    loadSimConfig(path.join(deployment.configDir, deployment.server.simulator.config ?? 'simulator.yaml')),
    { host: '127.0.0.1', port: 0 },
  )
  log.info('simulator started', { url: simulator.url })
  return simulator
}
