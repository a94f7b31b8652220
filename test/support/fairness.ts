/**
 * The fairness scenario of the fair queue, shared by the e2e test and bench/fairness.ts: one
 * tenant floods a small model with concurrent requests while another sends one request after
 * another; the usage records then say how long each waited and what each was served (the
 * bench's figures), and in what order slots were given (what the e2e test asserts: counts and
 * order, never durations).
 */
import type { TestGateway } from './gateway.js'
import type { UsageRecord } from '../../kernel/contract/records.js'

export interface Tenant {
  /** Name in the report. */
  readonly name: string
  /** The key's secret and id. */
  readonly secret: string
  readonly keyId: string
}

export interface TenantFigures {
  readonly requests: number
  /** Queue waits, ms, in order. */
  readonly waits: number[]
  readonly medianWaitMs: number
  readonly p90WaitMs: number
  /** Tokens served while both tenants had work (prompt + completion, by overlap with that window). */
  readonly tokensWhileBothBusy: number
  /** Requests that started service while both tenants had work. */
  readonly grantsWhileBothBusy: number
  /** For each request, how many of the other tenant's went ahead of it: started after it came, before it started. */
  readonly passedBy: number[]
}

export interface FairnessResult {
  readonly flood: TenantFigures
  readonly steady: TenantFigures
  /** Jain's fairness index of the tokens served while both had work: 1 is equal shares. */
  readonly jain: number
  /** Median time a request held its slot, ms. */
  readonly medianServiceMs: number
  readonly windowMs: number
}

export function jainIndex(xs: readonly number[]): number {
  const sum = xs.reduce((a, b) => a + b, 0)
  const squares = xs.reduce((a, b) => a + b * b, 0)
  return squares === 0 ? 1 : (sum * sum) / (xs.length * squares)
}

export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

interface Served {
  arrival: number
  serviceStart: number
  end: number
  tokens: number
}

const served = (r: UsageRecord): Served => ({
  arrival: r.at,
  serviceStart: r.at + (r.queueMs ?? 0),
  end: r.at + r.totalMs,
  tokens: r.promptTokens + r.completionTokens,
})

/** Tokens served inside [from, to], each request's tokens spread evenly over its service time. */
function tokensIn(list: readonly Served[], from: number, to: number): number {
  let total = 0
  for (const s of list) {
    const overlap = Math.min(s.end, to) - Math.max(s.serviceStart, from)
    const length = Math.max(1, s.end - s.serviceStart)
    if (overlap > 0) total += (s.tokens * overlap) / length
  }
  return total
}

export interface ScenarioOptions {
  model: string
  flood: Tenant
  steady: Tenant
  /** Concurrent requests of the flooding tenant. */
  floodRequests: number
  maxTokens: number
  /** The steady tenant starts this long after the flood (so the line is full when it comes). */
  steadyDelayMs?: number
}

export async function runFairnessScenario(gw: TestGateway, options: ScenarioOptions): Promise<FairnessResult> {
  const started = Date.now()
  const ask = (tenant: Tenant, i: number) =>
    gw.openai(tenant.secret).chat.completions.create({
      model: options.model,
      messages: [{ role: 'user', content: `request ${i} of ${tenant.name}: say something` }],
      max_tokens: options.maxTokens,
    })
  let floodLeft = options.floodRequests
  const flood = Promise.all(
    Array.from({ length: options.floodRequests }, (_, i) => ask(options.flood, i).finally(() => floodLeft--)),
  )
  await new Promise((r) => setTimeout(r, options.steadyDelayMs ?? 20))
  let n = 0
  // One request after another, for as long as the flood lasts.
  while (floodLeft > 0) await ask(options.steady, n++)
  await flood

  const records = await gw.generation().records.list({ from: started, to: Date.now() + 1 }, 10_000)
  const of = (t: Tenant) => records.filter((r) => r.keyId === t.keyId).sort((a, b) => a.at - b.at)
  const floodRecords = of(options.flood)
  const steadyRecords = of(options.steady)
  const floodServed = floodRecords.map(served)
  const steadyServed = steadyRecords.map(served)
  // Both have work from the steady tenant's first slot to the first of the two last ends.
  const from = Math.max(
    Math.min(...steadyServed.map((s) => s.serviceStart)),
    Math.min(...floodServed.map((s) => s.serviceStart)),
  )
  const to = Math.min(Math.max(...floodServed.map((s) => s.end)), Math.max(...steadyServed.map((s) => s.end)))
  const figures = (list: UsageRecord[], s: Served[], other: Served[]): TenantFigures => {
    const waits = list.map((r) => r.queueMs ?? 0)
    return {
      requests: list.length,
      waits,
      medianWaitMs: quantile(waits, 0.5),
      p90WaitMs: quantile(waits, 0.9),
      tokensWhileBothBusy: tokensIn(s, from, to),
      grantsWhileBothBusy: s.filter((x) => x.serviceStart >= from && x.serviceStart <= to).length,
      passedBy: s.map(
        (mine) => other.filter((o) => o.serviceStart > mine.arrival && o.serviceStart < mine.serviceStart).length,
      ),
    }
  }
  const f = figures(floodRecords, floodServed, steadyServed)
  const s = figures(steadyRecords, steadyServed, floodServed)
  return {
    flood: f,
    steady: s,
    jain: jainIndex([f.tokensWhileBothBusy, s.tokensWhileBothBusy]),
    medianServiceMs: quantile(
      [...floodServed, ...steadyServed].map((x) => x.end - x.serviceStart),
      0.5,
    ),
    windowMs: to - from,
  }
}
