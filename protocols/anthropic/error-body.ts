/**
 * The Messages API's error shape: `{"type":"error","error":{"type","message"}}`, its `type`
 * named by the HTTP status as Anthropic's API names it (so the official SDK raises the right
 * error class), and `request_id` as that API sends it.
 */
import type { GatewayError } from '../../kernel/contract/index.js'

/** Anthropic's error types by status; other statuses are `api_error`. */
const TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  410: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
}

export function anthropicErrorType(status: number): string {
  return TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error')
}

export function anthropicErrorBody(err: GatewayError): { type: 'error'; error: { type: string; message: string } } {
  return { type: 'error', error: { type: anthropicErrorType(err.status), message: err.message } }
}

export function anthropicErrorStyle() {
  return (err: GatewayError) => ({
    status: err.status,
    contentType: 'application/json',
    body: JSON.stringify(anthropicErrorBody(err)),
  })
}
