/**
 * A generation: one consistent set of config, services and loaded pipelines. Hot reload builds
 * a new generation beside the old one and swaps it in; requests already in flight finish on
 * the generation they started with, which is closed when its last request ends.
 */
import type { CallOptions, CallResult, Deployment, Kernel } from '../contract/kernel.js'
import type { Catalog } from '../contract/catalog.js'
import type { KernelServices } from '../services/kernel-services.js'
import type { UsageRecords } from '../contract/records.js'
import type { Metrics } from '../contract/metrics.js'
import type { Logger } from '../contract/log.js'
import type { LoadedRoute } from './route.js'
import type { PluginRegistry } from './registry.js'
import type { PluginStates } from './plugin-states.js'
import type { LayeredKeyStore } from '../services/keys/keys.js'
import type { BackendPools } from '../services/backends/pools.js'
import { openGenerationServices, type GenerationServiceOptions } from '../services/generation-services.js'
import { loadPipelines, type LoadedPipelines } from './loader.js'
import type { ChainState } from './chain.js'
import type { RunOptions } from './lifecycle.js'
import { callRoute } from '../transports/in-process.js'
import { bodySchemas } from '../../schemas/bodies.js'

export interface GenerationOptions extends GenerationServiceOptions {
  deployment: Deployment
  registry: PluginRegistry
  /** The plugins' states (made once, in gateway.ts): a plugin used for the first time opens here. */
  plugins: PluginStates
}

/** How long requests cut at shutdown get to end and record themselves. */
const CUT_MS = 1000

export class Generation implements Kernel {
  readonly config: Deployment
  readonly catalog: Catalog
  readonly keys: LayeredKeyStore
  readonly backends: BackendPools
  readonly records: UsageRecords
  readonly redis: KernelServices['redis']
  readonly stores: KernelServices['stores']
  readonly load: KernelServices['load']
  readonly metrics: Metrics
  readonly domains: KernelServices['domains']
  private readonly observer: KernelServices['observer']
  readonly log: Logger
  readonly now: () => number
  private pipelines!: LoadedPipelines
  private inflight = 0
  private retired = false
  private drained: (() => void) | undefined

  private constructor(options: GenerationOptions) {
    this.config = options.deployment
    this.log = options.log
    this.now = options.now ?? Date.now
    const made = openGenerationServices(options.deployment, { ...options, now: this.now })
    this.catalog = made.catalog
    this.keys = made.keys
    this.backends = made.backends
    this.records = options.services.records
    this.redis = options.services.redis
    this.stores = options.services.stores
    this.load = options.services.load
    this.metrics = options.services.metrics
    this.domains = options.services.domains
    this.observer = options.services.observer
  }

  static async create(options: GenerationOptions): Promise<Generation> {
    const gen = new Generation(options)
    try {
      gen.pipelines = await loadPipelines({
        pipelinesDir: options.deployment.pipelinesDir,
        files: options.deployment.server.pipelines,
        registry: options.registry,
        bodySchemas,
        kernel: gen,
        states: options.plugins,
      })
    } catch (err) {
      await gen.backends.close()
      gen.keys.close()
      throw err
    }
    return gen
  }

  /** The key store is also the admin API's way to change keys. */
  get keyAdmin(): LayeredKeyStore {
    return this.keys
  }

  get routes(): ReadonlyMap<string, LoadedRoute> {
    return this.pipelines.routes
  }

  /** Counts a request in; returns the function that counts it out. */
  enter(): () => void {
    this.inflight++
    let left = false
    return () => {
      if (left) return
      left = true
      this.inflight--
      if (this.inflight === 0 && this.drained) this.drained()
    }
  }

  get inFlight(): number {
    return this.inflight
  }

  /** Finish phases still running: a retiring generation waits for them, so no record is lost. */
  private readonly finishing = new Set<Promise<void>>()
  readonly track: NonNullable<ChainState['track']> = (finishing, ex, outcome) => {
    this.observer.end(ex, outcome)
    this.finishing.add(finishing)
    void finishing.finally(() => this.finishing.delete(finishing))
  }

  /** What the lifecycle needs of this generation: each request's start and end, the records journal a reply on a wire waits for. */
  private readonly start: RunOptions['start'] = (ex) => this.observer.start(ex)
  readonly runOptions: RunOptions = { track: this.track, durable: () => this.records.durable?.(), start: this.start }
  /** An in-process reply waits for no journal: the caller's own reply does. */
  readonly callOptions: RunOptions = { track: this.track, start: this.start }

  /** Resolves when no request is in flight, or when `ms` have passed. */
  private drain(ms: number): Promise<void> {
    if (this.inflight === 0) return Promise.resolve()
    return new Promise<void>((resolve) => {
      this.drained = resolve
      setTimeout(resolve, ms).unref()
    })
  }

  /**
   * Closes the generation once its in-flight requests are done, or the bound passes. Requests
   * still running then are cut: their upstream calls end at once, so their streams fail with
   * the in-band error, and their finish phases (records, budgets) run before anything closes.
   */
  async retire(boundMs: number): Promise<void> {
    if (this.retired) return
    this.retired = true
    await this.drain(boundMs)
    const overdue = this.inflight > 0
    await this.backends.close(overdue)
    if (overdue) await this.drain(CUT_MS)
    await Promise.allSettled([...this.finishing])
    await this.pipelines.close()
    this.keys.close()
  }

  call(routeId: string, body: unknown, options: CallOptions = {}): Promise<CallResult> {
    return callRoute(this, routeId, body, options)
  }
}
