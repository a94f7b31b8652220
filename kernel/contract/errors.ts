/**
 * One error type for the whole gateway. A plugin throws (or sets) a GatewayError; the kernel's
 * single boundary renders it in the pipeline's error style. Anything that is not a GatewayError
 * becomes a 500 whose message leaks nothing.
 */

/** The small named catalogue of `code` values the spec and the kernel use. */
export type ErrorCode =
  | 'model_retired'
  | 'unknown_endpoint'
  | 'body_too_large'
  | 'invalid_json'
  | 'invalid_request'
  | 'upstream_failed'
  | 'upstream_timeout'
  | 'upstream_error'
  | 'capacity_timeout'
  | 'internal'

export interface GatewayErrorOptions {
  /** `type` in the rendered body; defaults to `gateway_error`. */
  type?: string
  /** Machine-readable code, rendered as `error.code` when `expose` allows. */
  code?: ErrorCode | number
  /** Render `code` in the body (the spec shows it only on some errors, e.g. 410). */
  exposeCode?: boolean
  /** Extra response headers (e.g. Retry-After). */
  headers?: Record<string, string>
  /** A body to send as-is instead of the pipeline's error style (legacy `{"detail":"Not Found"}`). */
  rawBody?: unknown
  /** What caused it, for the log only; never rendered. */
  cause?: unknown
}

export class GatewayError extends Error {
  readonly status: number
  readonly type: string
  readonly code: ErrorCode | number | undefined
  readonly exposeCode: boolean
  readonly headers: Record<string, string>
  readonly rawBody: unknown

  constructor(status: number, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'GatewayError'
    this.status = status
    this.type = options.type ?? 'gateway_error'
    this.code = options.code
    this.exposeCode = options.exposeCode ?? false
    this.headers = options.headers ?? {}
    this.rawBody = options.rawBody
  }
}

/** Turns anything thrown into a GatewayError; unknown errors become an opaque 500. */
export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err
  return new GatewayError(500, 'internal error', { code: 'internal', cause: err })
}

/** A config file or pipeline that does not load; `code` is stable, the message may be reworded. */
export class ConfigError extends Error {
  constructor(
    message: string,
    readonly code: string = 'CONFIG_INVALID',
  ) {
    super(message)
    this.name = 'ConfigError'
  }
}

/** 413: a request body over the limit (the transport's reader and upload plugins refuse alike). */
export function tooLarge(): GatewayError {
  return new GatewayError(413, 'request body too large', { code: 'body_too_large' })
}
