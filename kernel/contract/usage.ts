/**
 * Usage is a kernel fact: `ex.usage` says what a request asked of a model and what it used.
 * Whatever talks to a model server fills it (through the backends service); budget, fair queue
 * and records only read it. The one rule that turns a server's report, an estimate and the
 * pieces streamed into "used" is `used()` below, so they can never disagree.
 */

/**
 * What a request may cost, known before any model runs: the reservation of budgets and the
 * fair queue's guess. Made by the route's model-reaching step (its plugin's `demand`).
 */
export interface Demand {
  /** An upper bound of the input tokens (prompt, speech input, audio). */
  readonly inputTokens: number
  /** Output tokens asked for, over all choices; undefined when the request sets no limit. */
  readonly outputTokens?: number
  /** Choices asked for (`n`); output limits apply per choice. */
  readonly choices: number
  /** Whether the reply length may be lowered to what a budget affords (`max_tokens`). */
  readonly adjustable: boolean
  /** Input characters, for models priced by character (speech). */
  readonly characters?: number
  /** Seconds of audio, for models priced by the minute (transcription). */
  readonly audioSeconds?: number
  /** Lowers the request's reply length (per choice); only when `adjustable`. */
  limitOutput?(perChoice: number): void
}

/** A model server's report, in the gateway's terms. */
export interface ReportedUsage {
  readonly inputTokens?: number
  readonly outputTokens?: number
  readonly cachedTokens?: number
  readonly characters?: number
  readonly audioSeconds?: number
}

/** What a request used, by the one rule. */
export interface Used {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cachedTokens: number
  readonly characters: number
  readonly audioSeconds: number
  /** `reported` by the server; `estimated` (cut or abandoned without a report); `none` (no model ran). */
  readonly source: 'reported' | 'estimated' | 'none'
}

const NOTHING: Used = {
  inputTokens: 0,
  outputTokens: 0,
  cachedTokens: 0,
  characters: 0,
  audioSeconds: 0,
  source: 'none',
}

export class Usage {
  /** Catalog id of the model called; set when a model server was called. */
  model: string | undefined
  /** The `model` the server reported. */
  upstreamModel: string | undefined
  /** Epoch ms of the first token (or audio, or the whole reply). */
  firstTokenAt: number | undefined
  /** Pieces streamed so far (one per choice event with content): a stream's size without a report. */
  streamed = 0
  /** The reply came from the response cache (which relays the cached reply's usage). */
  cached = false
  /** Catalog id of the model that failed before `model` answered (models.yaml `fallbacks`). */
  fallbackFrom: string | undefined
  private relayed: { used: Used; model: string } | undefined
  private chargeRelayed = false
  private report_: ReportedUsage | undefined
  private demand_: Demand | undefined
  /** Output tokens (all choices) the request was held to, once a budget lowered or set its limit. */
  private outputLimit: number | undefined

  constructor(private readonly demandOf: (() => Demand) | undefined) {}

  /** Whether a model server was called for this request. */
  get reached(): boolean {
    return this.model !== undefined
  }

  /**
   * Usage this request's reply tells the client as its own though internal calls (boon rounds,
   * an accepted draft, verdict questions) or the cache did the work: recorded on this request
   * (`told()`), never charged here (each internal call is charged on its own record).
   */
  relay(used: Used, model: string, charge = false): void {
    this.relayed = { model: this.relayed?.model ?? model, used: addUsed(this.relayed?.used ?? NOTHING, used) }
    this.chargeRelayed ||= charge
  }

  /** What budgets are charged: `used()`, plus relayed usage a cache hit was told to charge (models.yaml `cache.charge`). */
  charged(): Used {
    return this.chargeRelayed && this.relayed ? addUsed(this.used(), this.relayed.used) : this.used()
  }

  /** Whether the reply told the client of any model's work: its own call, or relayed usage. */
  get answered(): boolean {
    return this.reached || this.relayed !== undefined
  }

  /** The model the client was told answered: the one called, else the first relayed. */
  get toldModel(): string | undefined {
    return this.model ?? this.relayed?.model
  }

  /** What the client was told: its own call's usage (`used()`) plus what was relayed. */
  told(): Used {
    return this.relayed ? addUsed(this.used(), this.relayed.used) : this.used()
  }

  /** What the request may cost (computed once, by the route's model-reaching step). */
  demand(): Demand {
    this.demand_ ??= this.demandOf?.() ?? { inputTokens: 0, choices: 1, adjustable: false }
    return this.demand_
  }

  /**
   * Holds the request to `perChoice` output tokens per choice (a budget affords no more): the
   * request's own limit is lowered, and no more than that is ever charged.
   */
  limitOutput(perChoice: number): void {
    const demand = this.demand()
    if (!demand.adjustable) return
    demand.limitOutput?.(perChoice)
    this.outputLimit = perChoice * demand.choices
  }

  /**
   * The server's report (or the gateway's own exact count, as for speech). A later report
   * replaces an earlier one: servers that report during a stream report running totals.
   */
  report(usage: ReportedUsage): void {
    this.report_ = usage
  }

  get reported(): boolean {
    return this.report_ !== undefined
  }

  /** Output tokens (all choices) the request may produce: its own limit, or the budget's. */
  outputCap(): number {
    return Math.min(this.demand().outputTokens ?? Infinity, this.outputLimit ?? Infinity)
  }

  /**
   * The one rule. A report counts as reported, except that output beyond what the request was
   * allowed is not charged (the gateway reserved no more). Without a report, a request that
   * produced nothing used nothing; one cut or abandoned mid-way used its input estimate and the
   * pieces streamed, at most its output limit.
   */
  used(): Used {
    if (!this.reached) return NOTHING
    const demand = this.demand()
    const cap = this.outputCap()
    const r = this.report_
    if (r) {
      return {
        inputTokens: r.inputTokens ?? 0,
        outputTokens: Math.min(r.outputTokens ?? 0, cap),
        cachedTokens: r.cachedTokens ?? 0,
        characters: r.characters ?? 0,
        audioSeconds: r.audioSeconds ?? 0,
        source: 'reported',
      }
    }
    if (this.streamed === 0 && this.firstTokenAt === undefined) return NOTHING
    return {
      inputTokens: demand.inputTokens,
      outputTokens: Math.min(this.streamed, cap),
      cachedTokens: 0,
      characters: demand.characters ?? 0,
      audioSeconds: demand.audioSeconds ?? 0,
      source: 'estimated',
    }
  }
}

/** Two usages summed; the sum is `estimated` when either part was. */
function addUsed(a: Used, b: Used): Used {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    characters: a.characters + b.characters,
    audioSeconds: a.audioSeconds + b.audioSeconds,
    source:
      a.source === 'estimated' || b.source === 'estimated' ? 'estimated' : a.source === 'none' ? b.source : a.source,
  }
}
