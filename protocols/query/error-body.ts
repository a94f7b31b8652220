/**
 * The Query service's error shape (spec 001 shows none; docs/api-reference.md, "Query
 * service errors"): `{"error":{"status","type","code"?,"message"}}`. `type` names the class of
 * failure by HTTP status, so a client can branch on it without parsing messages; `code` is the
 * gateway's stable code where one exists (`invalid_request`, `upstream_failed` …). The same body
 * is the payload of a WebSocket error message.
 */
import type { GatewayError } from '../../kernel/contract/index.js'

const TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request',
  401: 'unauthenticated',
  403: 'permission_denied',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'timeout',
  409: 'conflict',
  410: 'gone',
  413: 'too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  500: 'internal',
  501: 'not_implemented',
  502: 'upstream_error',
  503: 'unavailable',
  504: 'timeout',
}

export function queryErrorType(status: number): string {
  return TYPES[status] ?? (status >= 500 ? 'internal' : 'invalid_request')
}

export interface QueryErrorBody {
  readonly error: {
    readonly status: number
    readonly type: string
    readonly code?: string | number
    readonly message: string
  }
}

export function queryErrorBody(err: GatewayError): QueryErrorBody {
  const error: { status: number; type: string; code?: string | number; message: string } = {
    status: err.status,
    type: queryErrorType(err.status),
    message: err.message,
  }
  if (err.exposeCode && err.code !== undefined) error.code = err.code
  return { error }
}

export function queryErrorStyle() {
  return (err: GatewayError) => ({
    status: err.status,
    contentType: 'application/json',
    body: JSON.stringify(queryErrorBody(err)),
  })
}
