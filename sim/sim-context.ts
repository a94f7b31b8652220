/**
 * Everything a handler needs from the running simulator: the validated config, the settings
 * that /admin/config may change, one engine per model, and the shared generators.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ActiveRequests } from './active-requests.js'
import { SimError } from './api-error.js'
import type { FailurePlan } from './failures.js'
import type { RunEnv } from './generation-run.js'
import { requestLatency, type LatencySettings } from './latency.js'
import { ModelEngine } from './model-engine.js'
import type { SimConfig, SimModelConfig } from './schema.js'
import { SeededRandom } from './seeded-random.js'
import type { FailureSettings } from './failures.js'

export interface RuntimeSettings {
  latency: LatencySettings
  failure: FailureSettings
}

export class SimContext {
  readonly settings: RuntimeSettings
  readonly engines = new Map<string, ModelEngine>()
  /** Jitter and failure draws: seeded, so a run with a given seed and request order repeats. */
  readonly random: SeededRandom
  readonly active = new ActiveRequests()
  readonly startedAt = Math.floor(Date.now() / 1000)

  constructor(readonly config: SimConfig) {
    this.settings = { latency: { ...config.latency }, failure: { ...config.failure, types: [...config.failure.types] } }
    this.random = new SeededRandom(config.seed)
    const limits = { maxRunning: config.max_running, maxWaiting: config.max_waiting }
    for (const model of config.models)
      this.engines.set(model.name, new ModelEngine(model, limits, config.kv_cache_blocks))
  }

  /** The engine serving `name`, or vLLM's 404. */
  engine(name: string): ModelEngine {
    const engine = this.engines.get(name)
    if (!engine) throw new SimError(404, `The model \`${name}\` does not exist.`, 'model')
    return engine
  }

  /** The model a request without `model` gets (/tokenize allows that): the first one listed. */
  defaultModel(): SimModelConfig {
    const first = this.config.models[0]
    if (!first) throw new SimError(404, 'No model is served.')
    return first
  }

  /** How a request runs; `model` scales the global latency by its `latency_factor` (a larger, slower model). */
  runEnv(
    req: IncomingMessage,
    res: ServerResponse,
    failure: FailurePlan,
    arrival: number,
    model?: SimModelConfig,
  ): RunEnv {
    const factor = model?.latency_factor ?? 1
    const base = this.settings.latency
    const latency = factor === 1 ? base : { ...base, ttft_ms: base.ttft_ms * factor, itl_ms: base.itl_ms * factor }
    return {
      res,
      latency: requestLatency(latency, req.headers, failure.stallMs),
      cutAfterChunks: failure.cutAfterChunks,
      jitter: this.random,
      active: this.active,
      arrival,
    }
  }
}

/** vLLM answers an endpoint the model's task does not serve with this 400. */
export function requireKind(engine: ModelEngine, kind: SimModelConfig['kind'], api: string): void {
  if (engine.model.kind !== kind) throw new SimError(400, `The model does not support ${api} API`)
}
