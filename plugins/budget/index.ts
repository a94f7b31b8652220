/**
 * budget: spending budgets per term (indicative value from the model's prices) and per-minute
 * token budgets, for the caller's key and its group. Before the request runs it reserves the
 * most the request can cost — `ex.usage.demand()`: its input (an upper-bound estimate, with
 * characters and audio seconds where a model is priced so) and its reply length (`max_tokens`,
 * or `default_max_tokens` when it sets none) — in one atomic step across all its budgets; when
 * the budgets afford less than that but at least `min_tokens` of reply, the reply length is
 * lowered to what they afford. When the reply ends, however it ends, the reservation is
 * settled to what `ex.usage.used()` says at the prices of the model that answered (a fallback's,
 * when one did), never past what was reserved. The ledger is the
 * plugin's state (ledger/open-ledger.ts): opened once per process, kept across reloads.
 */
import {
  GatewayError,
  definePlugin,
  describeCause,
  unitPrices,
  valueOf,
  type Exchange,
  type Principal,
  type TermBudget,
  type UnitPrices,
} from '../../kernel/contract/index.js'
import type { LedgerLine, LedgerTicket } from './ledger/ledger.js'
import type { SpendScope } from '../../kernel/contract/index.js'
import { openLedger } from './ledger/open-ledger.js'
import { configSchema } from './schema.js'
import { termPeriod } from './terms.js'

/** Which budget a ledger line is: it decides the refusal. */
type LineKind = 'key_term' | 'group_term' | 'key_tokens' | 'group_tokens'

/** The budgets a request is kept to: its key's and its group's term and tokens a minute. */
interface Kept {
  keyTerm: TermBudget | undefined
  groupTerm: TermBudget | undefined
  keyTokens: number | undefined
  groupTokens: number | undefined
}

declare module '../../kernel/contract/index.js' {
  interface ExchangeState {
    budget?: {
      ticket: LedgerTicket
      kinds: readonly LineKind[]
    }
  }
}

const refusals: Record<LineKind, () => GatewayError> = {
  key_term: () => new GatewayError(403, 'api key term budget exhausted'),
  group_term: () => new GatewayError(403, 'tenant term budget exhausted'),
  key_tokens: () => new GatewayError(429, 'token budget exceeded'),
  group_tokens: () => new GatewayError(429, 'token budget exceeded'),
}

const MINUTE = 60_000
/** Term counters are kept a while past their term, so a late settlement still finds them. */
const TERM_GRACE = 7 * 86_400_000

export default definePlugin({
  name: 'budget',
  config: configSchema,
  requires: ['principal', 'model'],
  meters: 'budget',
  open: openLedger,
  setup(config, kernel, { ledger }) {
    const refused = kernel.metrics.counter(
      'sluice_budget_refusals_total',
      'Requests refused for lack of budget, by budget.',
    )
    /** A request under some budget: its reservation made (or refused) before the model is called. */
    const metered = async (ex: Exchange, next: () => Promise<void>, principal: Principal, kept: Kept) => {
      const { keyTerm, groupTerm, keyTokens, groupTokens } = kept
      const model = ex.state.model!.model
      const prices = unitPrices(model.prices)
      const demand = ex.usage.demand()
      const asked = demand.outputTokens === undefined ? undefined : Math.ceil(demand.outputTokens / demand.choices)
      const perChoiceMax = Math.max(
        demand.adjustable ? 1 : 0,
        Math.min(asked ?? config.default_max_tokens, model.context_window ?? Infinity),
      )
      const max = perChoiceMax * demand.choices
      // A reply that cannot be shortened must be afforded whole.
      const min = demand.adjustable ? Math.min(config.min_tokens, perChoiceMax) * demand.choices : max
      const fixedValue = fixedCost(demand, prices)

      const now = kernel.now()
      const lines: LedgerLine[] = []
      const kinds: LineKind[] = []
      // A term counter first seen (a new term, or a restart) starts from the records' sum.
      // Its scope lets a shared ledger reconcile it with the records.
      const term = (kind: 'key_term' | 'group_term', name: string, budget: TermBudget, scope: SpendScope) => {
        const period = termPeriod(budget.term, now)
        lines.push({
          counter: `budget:term:${name}:${period.id}`,
          limit: budget.amount,
          fixed: fixedValue,
          perUnit: prices.output,
          window: {
            kind: 'term',
            expiresAt: period.end + TERM_GRACE,
            seed: () => kernel.records.spent(scope, period.start),
            scope,
          },
        })
        kinds.push(kind)
      }
      if (keyTerm) term('key_term', `key:${principal.keyId}`, keyTerm, { keyId: principal.keyId })
      if (groupTerm) term('group_term', `group:${principal.group}`, groupTerm, { group: principal.group })
      const tokens = (kind: 'key_tokens' | 'group_tokens', scope: string, limit: number) => {
        lines.push({
          counter: `budget:tpm:${scope}`,
          limit,
          fixed: demand.inputTokens,
          perUnit: 1,
          window: { kind: 'sliding', ms: MINUTE },
        })
        kinds.push(kind)
      }
      if (keyTokens !== undefined) tokens('key_tokens', `key:${principal.keyId}`, keyTokens)
      if (groupTokens !== undefined) tokens('group_tokens', `group:${principal.group}`, groupTokens)

      let reservation
      try {
        reservation = await ledger.reserve(lines, { min, max }, now, ex.startedAt)
      } catch (err) {
        // Budgets must hold: without the ledger nothing is served.
        throw new GatewayError(503, 'budget state is unavailable', { headers: { 'retry-after': '5' }, cause: err })
      }
      if (!reservation.ok) {
        const kind = kinds[reservation.line]!
        refused.inc({ budget: kind })
        throw refusals[kind]()
      }
      const granted = reservation.units
      if (demand.adjustable && (granted < max || asked === undefined))
        ex.usage.limitOutput(Math.floor(granted / demand.choices))
      if (demand.adjustable && granted < max)
        ex.headers.set(`${ex.headerPrefix}budget-max-tokens`, String(Math.floor(granted / demand.choices)))
      ex.state.budget = { ticket: reservation.ticket, kinds }
      await next()
    }

    return {
      // Not async: a request under no budget hands back next()'s own promise, no hop added.
      request(ex, next) {
        const principal = ex.principal
        if (!principal) return next()
        const key = kernel.keys.key(principal.keyId)
        const group = kernel.keys.group(principal.group)
        const keyTerm = key?.budget
        const groupTerm = group?.budget
          ? ({ amount: group.budget.amount, term: group.budget.term ?? 'month' } as TermBudget)
          : undefined
        const keyTokens = key?.tokensPerMinute
        const groupTokens = group?.tokens_per_minute
        // Nothing to keep to: no work on the request path.
        if (!keyTerm && !groupTerm && keyTokens === undefined && groupTokens === undefined) return next()
        return metered(ex, next, principal, { keyTerm, groupTerm, keyTokens, groupTokens })
      },
      async finish(ex) {
        const b = ex.state.budget
        if (!b) return
        // What the request's own model call used (plus a cache hit's answer, when its model charges hits).
        const used = ex.usage.charged()
        // Priced as the model that answered (a fallback's, when one did), not the one asked for.
        const chosen = ex.state.model!.model
        const answered = ex.usage.model
        const model =
          answered === undefined || answered === chosen.id ? chosen : (kernel.catalog.model(answered) ?? chosen)
        const amounts = b.kinds.map((kind) =>
          kind === 'key_term' || kind === 'group_term'
            ? valueOf(model.prices, used)
            : used.inputTokens + used.outputTokens,
        )
        try {
          await ledger.settle(b.ticket, amounts, kernel.now())
        } catch (err) {
          ex.log.error(
            'budget settlement failed; the reservation lapses with its lease, and reconciliation counts the record',
            { cause: describeCause(err) },
          )
        }
      },
    }
  },
})

/** What a request costs whatever its reply: input tokens, characters and audio seconds. */
function fixedCost(demand: ReturnType<Exchange['usage']['demand']>, prices: UnitPrices): number {
  return (
    demand.inputTokens * prices.input +
    (demand.characters ?? 0) * prices.character +
    (demand.audioSeconds ?? 0) * prices.second
  )
}
