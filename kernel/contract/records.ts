/**
 * Usage records as plugins see them: one record per request that reached a model (figures and
 * identifiers only), and the buffered writer's interface (`kernel.records`).
 */

/** One request that reached a model. Figures and identifiers only: never prompt or reply text. */
export interface UsageRecord {
  /** Epoch ms at which the request started. */
  readonly at: number
  readonly requestId: string
  readonly keyId: string
  readonly group: string
  /** Route id (`chat`, `completions`, `chat-internal` …): tells client requests from in-process calls. */
  readonly route: string
  /** The `model` the client asked for (a catalog id, a family, a server name or `auto`). */
  readonly modelRequested: string
  /** The catalog model that answered. */
  readonly model: string
  /** The name the model server reported, when it reported one. */
  readonly upstreamModel: string | null
  readonly promptTokens: number
  readonly completionTokens: number
  readonly cachedTokens: number
  /** Seconds of audio transcribed or translated (0 elsewhere). */
  readonly audioSeconds: number
  /** Input characters of speech (0 elsewhere). */
  readonly characters: number
  /** `reported` by the model server, `estimated` by the gateway (cut, abandoned), `none` (nothing ran). */
  readonly usageSource: 'reported' | 'estimated' | 'none'
  /** Indicative value from the model's prices (no charge is made). */
  readonly value: number
  /** HTTP status of the reply (499: the client went away). */
  readonly status: number
  readonly outcome: 'done' | 'failed' | 'aborted'
  /** Time waited for model capacity, ms (null on routes without a fair queue). */
  readonly queueMs: number | null
  /** From the request's start to the first token, ms (null when no token came). */
  readonly ttftMs: number | null
  readonly totalMs: number
  /**
   * The client request this call was made for (boon rounds, drafts and checks, verdict
   * questions, Query service calls); null on a client request's own record.
   */
  readonly parentRequestId: string | null
  /**
   * Indicative value charged to budgets for this record's own model calls. A client request
   * answered through internal calls tells the client their usage (`value`, tokens) but is
   * charged nothing itself: each internal call is charged its own (docs/decisions.md).
   */
  readonly charged: number
  /** Answered from the response cache: no model server was called. */
  readonly cached: boolean
  /** The model that failed before this one answered (models.yaml `fallbacks`); null otherwise. */
  readonly fallbackFrom: string | null
}

export interface UsagePeriod {
  /** Epoch ms, inclusive. */
  readonly from: number
  /** Epoch ms, exclusive. */
  readonly to: number
  readonly keyId?: string
  readonly group?: string
  readonly model?: string
  /** A client request's record and the records of its internal calls (`parent_request_id`). */
  readonly requestId?: string
}

export type UsageDimension = 'key' | 'model' | 'group'

/** Usage summed over a period for one key, model or group. */
export interface UsageRow {
  readonly name: string
  /** Client requests; the figures below up to `value` are what those requests were told. */
  readonly requests: number
  readonly promptTokens: number
  readonly completionTokens: number
  readonly cachedTokens: number
  readonly audioSeconds: number
  readonly characters: number
  readonly value: number
  /** Internal calls (with a parent request), shown apart from client requests. */
  readonly internalRequests: number
  readonly internalPromptTokens: number
  readonly internalCompletionTokens: number
  /** Indicative value charged to budgets, client requests and internal calls together. */
  readonly charged: number
  /** Start of the period's latest request (epoch ms): a key's "last use" in the portal. */
  readonly lastAt: number
}

/** Whose spending a sum of records is: one key's, or one group's. */
export type SpendScope = { readonly keyId: string } | { readonly group: string }

export interface UsageRecords {
  /** Buffers a record for the next batch. Never waits, never throws. */
  add(record: UsageRecord): void
  /** Writes what is buffered now (admin queries and shutdown call it). */
  flush(): Promise<void>
  /**
   * Resolves once the records added so far are safe from a crash of the process (the journal's
   * write of this turn); undefined when nothing waits. A transport awaits it before it writes
   * a reply, so no reply leaves before its record is safe.
   */
  durable?(): Promise<void> | undefined
  list(period: UsagePeriod, limit: number): Promise<UsageRecord[]>
  summarize(period: UsagePeriod, by: UsageDimension): Promise<UsageRow[]>
  /** Indicative value spent by a key or a group by requests started in [since, until) (seeds and reconciles term budgets). */
  spent(scope: SpendScope, since: number, until?: number): Promise<number>
  /** A cheap query on the records store, for the readiness probe. */
  ping(): Promise<void>
}
