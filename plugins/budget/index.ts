/**
 * budget: spending budgets per term (indicative value from the model's prices) and per-minute
 * token budgets, for the caller's key and its group. Before the request runs it reserves the
 * most the request can cost — its prompt (an upper-bound estimate) and its reply length
 * (`max_tokens`, or `default_max_tokens` when it sets none) — in one atomic step across all
 * its budgets; when the budgets afford less than that but at least `min_tokens` of reply,
 * max_tokens is lowered to what they afford. When the reply ends, however it ends, the
 * reservation is settled to the tokens actually used (from the backend's usage report).
 */
import { definePlugin } from '../../kernel/plugin.js'
import { GatewayError } from '../../kernel/errors.js'
import type { Exchange } from '../../kernel/exchange.js'
import type { TermBudget } from '../../kernel/kernel.js'
import type { LedgerLine, LedgerTicket } from '../../kernel/services/state/ledger.js'
import { estimatePromptTokens, requestedCompletion } from '../../protocols/openai/token-estimate.js'
import { perToken } from '../../protocols/usage/indicative-value.js'
import { describeCause } from '../../kernel/log.js'
import { configSchema } from './schema.js'
import { termPeriod } from './terms.js'

/** Which budget a ledger line is: it decides the refusal. */
type LineKind = 'key_term' | 'group_term' | 'key_tokens' | 'group_tokens'

declare module '../../kernel/exchange.js' {
  interface ExchangeState {
    budget?: {
      ticket: LedgerTicket
      kinds: readonly LineKind[]
      promptEstimate: number
      /** Reply tokens reserved (all choices). */
      reservedTokens: number
      prices: { prompt: number; completion: number }
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
  requires: ['auth', 'model'],
  setup(config, kernel) {
    const estimate = { perMessage: config.tokens_per_message, perImage: config.tokens_per_image }
    const refused = kernel.metrics.counter('sluice_budget_refusals_total', 'Requests refused for lack of budget, by budget.')
    return {
      async request(ex, next) {
        const principal = ex.principal
        if (!principal) return next()
        const key = kernel.keys.key(principal.keyId)
        const group = kernel.keys.group(principal.group)
        const keyTerm = key?.budget
        const groupTerm = group?.budget ? ({ amount: group.budget.amount, term: group.budget.term ?? 'month' } as TermBudget) : undefined
        const keyTokens = key?.tokensPerMinute
        const groupTokens = group?.tokens_per_minute
        // Nothing to keep to: no work on the request path.
        if (!keyTerm && !groupTerm && keyTokens === undefined && groupTokens === undefined) return next()

        const model = ex.state.model!.model
        const prices = perToken(model.prices)
        const promptEstimate = estimatePromptTokens(ex.body, estimate)
        const asked = requestedCompletion(ex.body)
        const perChoiceMax = Math.max(1, Math.min(asked.perChoice ?? config.default_max_tokens, model.context_window ?? Infinity))
        const max = perChoiceMax * asked.choices
        const min = Math.min(config.min_tokens, perChoiceMax) * asked.choices

        const now = kernel.now()
        const lines: LedgerLine[] = []
        const kinds: LineKind[] = []
        // A term counter first seen (a new term, or a restart) starts from the records' sum.
        const term = (kind: 'key_term' | 'group_term', scope: string, budget: TermBudget, spentSince: (since: number) => Promise<number>) => {
          const period = termPeriod(budget.term, now)
          lines.push({
            counter: `budget:term:${scope}:${period.id}`,
            limit: budget.amount,
            fixed: promptEstimate * prices.prompt,
            perUnit: prices.completion,
            window: { kind: 'term', expiresAt: period.end + TERM_GRACE, seed: () => spentSince(period.start) },
          })
          kinds.push(kind)
        }
        if (keyTerm) term('key_term', `key:${principal.keyId}`, keyTerm, (since) => kernel.records.spent({ keyId: principal.keyId }, since))
        if (groupTerm) term('group_term', `group:${principal.group}`, groupTerm, (since) => kernel.records.spent({ group: principal.group }, since))
        const tokens = (kind: 'key_tokens' | 'group_tokens', scope: string, limit: number) => {
          lines.push({ counter: `budget:tpm:${scope}`, limit, fixed: promptEstimate, perUnit: 1, window: { kind: 'sliding', ms: MINUTE } })
          kinds.push(kind)
        }
        if (keyTokens !== undefined) tokens('key_tokens', `key:${principal.keyId}`, keyTokens)
        if (groupTokens !== undefined) tokens('group_tokens', `group:${principal.group}`, groupTokens)

        let reservation
        try {
          reservation = await kernel.state.ledger.reserve(lines, { min, max }, now)
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
        if (granted < max || asked.perChoice === undefined) setMaxTokens(ex, Math.floor(granted / asked.choices))
        if (granted < max) ex.headers.set(`${ex.headerPrefix}budget-max-tokens`, String(Math.floor(granted / asked.choices)))
        ex.state.budget = { ticket: reservation.ticket, kinds, promptEstimate, reservedTokens: granted, prices }
        await next()
      },
      async finish(ex) {
        const b = ex.state.budget
        if (!b) return
        const used = usedTokens(ex, b)
        const amounts = b.kinds.map((kind) =>
          kind === 'key_term' || kind === 'group_term' ? used.prompt * b.prices.prompt + used.completion * b.prices.completion : used.prompt + used.completion,
        )
        try {
          await kernel.state.ledger.settle(b.ticket, amounts, kernel.now())
        } catch (err) {
          ex.log.error('budget settlement failed; the reservation stands', { cause: describeCause(err) })
        }
      },
    }
  },
})

/** The request's reply length, as the model server will read it. */
function setMaxTokens(ex: Exchange, perChoice: number): void {
  const body = ex.body as { max_tokens?: number | null; max_completion_tokens?: number | null }
  if (body.max_completion_tokens != null) body.max_completion_tokens = perChoice
  else body.max_tokens = perChoice
}

/**
 * What the request used: the model server's usage report; without one (a stream cut or
 * abandoned), the prompt estimate and the pieces streamed, at most what was reserved; nothing
 * when no token was produced.
 */
function usedTokens(ex: Exchange, b: NonNullable<Exchange['state']['budget']>): { prompt: number; completion: number } {
  const usage = ex.state.backend?.usage
  if (usage) return { prompt: usage.prompt_tokens ?? 0, completion: usage.completion_tokens ?? 0 }
  const streamed = ex.state.backend?.streamedTokens ?? 0
  if (streamed === 0 && ex.state.backend?.firstTokenAt === undefined) return { prompt: 0, completion: 0 }
  return { prompt: b.promptEstimate, completion: Math.min(streamed, b.reservedTokens) }
}
