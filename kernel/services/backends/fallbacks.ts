/**
 * Fallback models (models.yaml `fallbacks`): when every replica of a model failed before
 * anything reached the client — unreachable, timed out (`timeout_ms`), a 5xx or a 429 from the
 * server — the models of its list are tried in order, each with the request made for it (its
 * own served name; the caller's `refit` for more), until one answers. That one is the model of
 * the request from then on (`ex.usage.model`, so records and budgets price what was served); the
 * response says which model failed (`<prefix>fallback`) and so does the record
 * (`ex.usage.fallbackFrom`). A model the caller could not call itself (disabled, retired, not
 * permitted to its group) is skipped. When none answers, the request fails as it would have
 * without fallbacks: with its own model's error.
 */
import { FormData } from 'undici'
import { GatewayError } from '../../contract/errors.js'
import type { Exchange } from '../../contract/exchange.js'
import type { Catalog } from '../../contract/kernel.js'
import type { UpstreamCall } from '../../contract/upstream-call.js'
import type { ModelConfig } from '../../../schemas/models.schema.js'

/**
 * Whether a model's failure lets a fallback answer: the server could not or would not serve
 * (it was unreachable, timed out, answered a 5xx or a 429), and the request itself has not
 * stopped. A 4xx other than 429 is an answer about the request: another model would get it too.
 */
export function fallsBack(signal: AbortSignal, err: unknown): boolean {
  if (signal.aborted || !(err instanceof GatewayError)) return false
  if (err.code === 'upstream_failed' || err.code === 'upstream_timeout') return true
  return err.code === 'upstream_error' && (err.status >= 500 || err.status === 429)
}

/** A fallback the caller could call by its own name: enabled, not retired, permitted to its group and key. */
function callable(catalog: Catalog, ex: Exchange, model: ModelConfig): boolean {
  if (model.enabled === false) return false
  if (model.status === 'deprecated' && model.retire_at !== undefined && Date.parse(model.retire_at) <= Date.now())
    return false
  return catalog.permits(ex.principal, [model.id])
}

/**
 * The call for `model` when its caller gave no `refit`: the body's `model` (a JSON object's
 * field, or a form's) names the fallback as its server knows it; the rest goes as it was.
 */
export function renamed(call: UpstreamCall, model: ModelConfig): UpstreamCall | undefined {
  const name = model.served_name ?? model.id
  const body = call.body
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    let parsed: unknown
    try {
      parsed = JSON.parse(typeof body === 'string' ? body : body.toString('utf8'))
    } catch {
      return undefined
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined
    const fields = parsed as Record<string, unknown>
    if ('model' in fields) fields.model = name
    return { ...call, model, body: JSON.stringify(fields) }
  }
  const form = new FormData()
  for (const [field, value] of body) {
    if (field === 'model') form.append(field, name)
    else if (typeof value === 'string') form.append(field, value)
    else form.append(field, value, value.name)
  }
  return { ...call, model, body: form }
}

function described(err: unknown): Record<string, unknown> {
  return err instanceof GatewayError ? { status: err.status, code: err.code } : { error: String(err) }
}

/**
 * After `call` failed with `failure`: its model's fallbacks in turn, through `callModel` (the
 * same replica retries and errors as the first model's call), until one answers.
 */
export async function fallBack<T>(
  ex: Exchange,
  catalog: Catalog,
  call: UpstreamCall,
  failure: unknown,
  callModel: (call: UpstreamCall) => Promise<T>,
): Promise<T> {
  const first = call.model
  if (!fallsBack(ex.signal, failure)) throw failure
  let error: unknown = failure
  for (const id of first.fallbacks ?? []) {
    const model = catalog.model(id)
    if (!model || !callable(catalog, ex, model)) continue
    const next = call.refit ? call.refit(model) : renamed(call, model)
    if (!next) continue
    ex.log.warn('model failed before answering; trying a fallback', {
      model: first.id,
      fallback: model.id,
      ...described(error),
    })
    try {
      const answer = await callModel(next)
      ex.usage.fallbackFrom = first.id
      ex.headers.set(`${ex.headerPrefix}fallback`, first.id)
      return answer
    } catch (err) {
      error = err
      if (ex.signal.aborted) break
    }
  }
  // None answered: the request's own model and its error, as without fallbacks (a stop is the stop).
  ex.usage.model = first.id
  throw ex.signal.aborted ? error : failure
}
