/**
 * One simulated model server: its waiting line, its prefix cache, its KV-cache occupancy and
 * its metrics. Each configured model gets its own, as if each ran in its own vLLM process.
 */
import { ModelMetrics, type FinishedReason } from './metrics.js'
import { blockSize, PrefixCache } from './prefix-cache.js'
import type { SimModelConfig } from './schema.js'
import { Scheduler, type SchedulerLimits } from './scheduler.js'

/** What a running request holds until it ends. */
export interface RunTicket {
  readonly promptTokens: number
  readonly cachedTokens: number
  readonly kvBlocks: number
}

export interface RunOutcome {
  finishedReason: FinishedReason
  completionTokens: number
  /** Seconds from arrival to the first token, when one was sent. */
  ttftSeconds: number | undefined
  e2eSeconds: number
}

export class ModelEngine {
  readonly scheduler: Scheduler
  readonly prefixCache: PrefixCache
  readonly metrics: ModelMetrics
  private kvBlocksInUse = 0
  requestsTotal = 0

  constructor(
    readonly model: SimModelConfig,
    limits: SchedulerLimits,
    private readonly kvCacheBlocks: number,
  ) {
    this.scheduler = new Scheduler(limits)
    this.prefixCache = new PrefixCache(kvCacheBlocks)
    this.metrics = new ModelMetrics(model.name, {
      running: () => this.scheduler.running,
      waiting: () => this.scheduler.waiting,
      kvCacheUsage: () => Math.min(1, this.kvBlocksInUse / this.kvCacheBlocks),
    })
  }

  /**
   * The request got its slot: look its prompts up in the prefix cache (a batch of legacy
   * completion prompts has several) and reserve their KV blocks.
   */
  startRun(prompts: ReadonlyArray<readonly number[]>, outputTokens: number, queueSeconds: number): RunTicket {
    let promptTokens = 0
    let cachedTokens = 0
    // Pooling (embedding) models keep no prefix cache in vLLM.
    const caching = this.model.kind === 'chat'
    for (const ids of prompts) {
      promptTokens += ids.length
      if (caching) cachedTokens += this.prefixCache.lookupAndStore(ids)
    }
    const kvBlocks = Math.ceil((promptTokens + outputTokens) / blockSize)
    this.kvBlocksInUse += kvBlocks
    this.requestsTotal++
    const m = this.metrics
    m.queueTime.observe(queueSeconds)
    m.promptTokens += promptTokens
    m.prefixCacheQueries += promptTokens
    m.prefixCacheHits += cachedTokens
    return { promptTokens, cachedTokens, kvBlocks }
  }

  /** The request ended (finished, cut or abandoned): free its slot and record it. */
  endRun(ticket: RunTicket, outcome: RunOutcome): void {
    this.kvBlocksInUse -= ticket.kvBlocks
    this.scheduler.release()
    const m = this.metrics
    m.generationTokens += outcome.completionTokens
    m.finished[outcome.finishedReason]++
    if (outcome.ttftSeconds !== undefined) m.timeToFirstToken.observe(outcome.ttftSeconds)
    m.e2eLatency.observe(outcome.e2eSeconds)
  }
}
