/** The period and filters of a usage query, from the query string, with clear 400s. */
import { GatewayError } from '../../kernel/contract/index.js'
import type { UsagePeriod } from '../../kernel/contract/index.js'

/** The largest time a JavaScript Date holds (±100,000,000 days from 1970): past it, there is no ISO 8601 form to answer with. */
const MAX_TIME = 8.64e15

function time(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name)
  if (raw === null || raw === '') return fallback
  const t = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw)
  if (!(Math.abs(t) <= MAX_TIME))
    throw new GatewayError(400, `invalid request: ${name} must be an ISO 8601 time or epoch milliseconds`, {
      code: 'invalid_request',
    })
  return t
}

/**
 * Default period: from the start of the current month (UTC) to now; with `request_id`, all
 * time (a request is looked up by its id, whenever it ran).
 */
export function usagePeriod(query: URLSearchParams, now: number): UsagePeriod {
  const d = new Date(now)
  const requestId = query.get('request_id') || undefined
  const from = time(query, 'from', requestId ? 0 : Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1))
  const to = time(query, 'to', now + 1)
  if (to <= from) throw new GatewayError(400, 'invalid request: to must be after from', { code: 'invalid_request' })
  const text = (name: string) => query.get(name) || undefined
  return { from, to, keyId: text('key'), group: text('group'), model: text('model'), requestId }
}
