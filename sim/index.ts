/**
 * The model-server simulator: an OpenAI-compatible server in the manner of
 * llm-d-inference-sim, started in-process by the embedded default config or standalone by
 * sim/main.ts. See docs/simulator.md.
 */
import type { AddressInfo } from 'node:net'
import { validateSimConfig } from './config-validation.js'
import type { SimConfigInput } from './schema.js'
import { createSimServer } from './server.js'
import { SimContext } from './sim-context.js'

export { simConfigSchema, simModelSchema, failureTypes } from './schema.js'
export type { SimConfig, SimConfigInput, SimModelConfig, FailureType } from './schema.js'
export { loadSimConfig, defaultSimConfigFile } from './config-file.js'
export { validateSimConfig, SimConfigError } from './config-validation.js'

export interface ModelStats {
  /** Requests that got a running slot since start. */
  requests: number
  running: number
  waiting: number
  promptTokens: number
  generationTokens: number
  prefixCacheHits: number
  prefixCacheQueries: number
  kvCacheUsage: number
}

export interface SimulatorStats {
  requests: number
  running: number
  waiting: number
  models: Record<string, ModelStats>
}

export interface RunningSimulator {
  /** Base URL without /v1, e.g. http://127.0.0.1:41234 */
  url: string
  port: number
  close(): Promise<void>
  stats(): SimulatorStats
}

export interface StartOptions {
  /** Default 127.0.0.1. */
  host?: string
  /** Default 0: an ephemeral port. */
  port?: number
  /** Where unexpected errors are written; default stderr. */
  log?: (line: string) => void
}

/** Validates the config (filling defaults; the argument is not changed) and starts listening. */
export async function startSimulator(config: SimConfigInput, options: StartOptions = {}): Promise<RunningSimulator> {
  const sim = new SimContext(validateSimConfig(config))
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  const front = createSimServer(sim, log)
  const server = front.server
  const host = options.host ?? '127.0.0.1'
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://${urlHost(host)}:${port}`,
    port,
    close: () => closeServer(sim, front),
    stats: () => statsOf(sim),
  }
}

/** A wildcard address is reached on loopback; IPv6 literals need brackets in a URL. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1'
  return host.includes(':') ? `[${host}]` : host
}

function closeServer(sim: SimContext, front: ReturnType<typeof createSimServer>): Promise<void> {
  return new Promise((resolve) => {
    // Streams and timers in flight end now; idle keep-alive connections would hold close() open.
    sim.active.abortAll()
    front.server.close(() => resolve())
    front.closeAll()
  })
}

function statsOf(sim: SimContext): SimulatorStats {
  const stats: SimulatorStats = { requests: 0, running: 0, waiting: 0, models: {} }
  for (const [name, engine] of sim.engines) {
    const m = engine.metrics
    const model: ModelStats = {
      requests: engine.requestsTotal,
      running: engine.scheduler.running,
      waiting: engine.scheduler.waiting,
      promptTokens: m.promptTokens,
      generationTokens: m.generationTokens,
      prefixCacheHits: m.prefixCacheHits,
      prefixCacheQueries: m.prefixCacheQueries,
      kvCacheUsage: m.gauges.kvCacheUsage(),
    }
    stats.models[name] = model
    stats.requests += model.requests
    stats.running += model.running
    stats.waiting += model.waiting
  }
  return stats
}
