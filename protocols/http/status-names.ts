/**
 * A short name for each HTTP error status: the access log's `error_code` and a span's
 * `error.type` for a failure whose error carries no code of its own.
 */
import type { Outcome } from '../../kernel/contract/index.js'

const NAMES: Readonly<Record<number, string>> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  410: 'gone',
  413: 'body_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable_entity',
  429: 'rate_limited',
  431: 'headers_too_large',
  499: 'client_closed',
  500: 'internal',
  502: 'upstream_failed',
  503: 'unavailable',
  504: 'upstream_timeout',
}

/** `not_found` for 404 …; `http_<status>` for a status without a name. */
export function statusName(status: number): string {
  return NAMES[status] ?? `http_${status}`
}

/** The code of a request that failed (its error's own, else its status named); undefined when it did not fail. */
export function errorCode(outcome: Outcome): string | undefined {
  const code = outcome.error?.code
  if (code !== undefined) return String(code)
  if (outcome.kind === 'done' && outcome.status < 400) return undefined
  return statusName(outcome.status)
}
