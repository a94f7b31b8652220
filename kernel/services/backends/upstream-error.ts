/**
 * Upstream errors, shared by every plugin that calls a model server (backend, speech,
 * transcription), which is why it is a kernel service: plugins never import each other.
 * Model servers report errors in several shapes: vLLM's nested `{"error":{message,type,code}}`,
 * SGLang's and older vLLM's flat `{"object":"error","message",…}`, TGI's `{"error":"…",
 * "error_type"}`, FastAPI's `{"detail":…}`. The gateway passes the status and message through.
 */
import { GatewayError } from '../../contract/errors.js'

export function upstreamErrorMessage(text: string): { message: string; type?: string } {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return { message: text.trim().slice(0, 500) || 'upstream error' }
  }
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>
    const nested = b.error
    if (nested && typeof nested === 'object') {
      const n = nested as Record<string, unknown>
      if (typeof n.message === 'string')
        return { message: n.message, type: typeof n.type === 'string' ? n.type : undefined }
    }
    if (typeof nested === 'string')
      return { message: nested, type: typeof b.error_type === 'string' ? b.error_type : undefined }
    if (typeof b.message === 'string')
      return { message: b.message, type: typeof b.type === 'string' ? b.type : undefined }
    if (typeof b.detail === 'string') return { message: b.detail }
    if (Array.isArray(b.detail)) return { message: JSON.stringify(b.detail).slice(0, 500) }
  }
  return { message: 'upstream error' }
}

export function upstreamError(status: number, text: string): GatewayError {
  const { message, type } = upstreamErrorMessage(text)
  return new GatewayError(status, message, { type: type ?? 'gateway_error', code: 'upstream_error' })
}

/** What a failure to reach or read the model server becomes, given why the request stopped. */
export function transportFailure(signal: AbortSignal, cause: unknown, streaming: boolean): GatewayError | DOMException {
  if (signal.aborted) {
    const reason: unknown = signal.reason
    if (reason instanceof GatewayError) {
      // A stream cut by the time limit ends with the spec's in-band error (code 502).
      return streaming ? new GatewayError(502, reason.message, { code: 'upstream_timeout' }) : reason
    }
    return reason instanceof DOMException ? reason : new DOMException('client closed the request', 'AbortError')
  }
  if (cause instanceof GatewayError) return cause
  return new GatewayError(502, 'upstream request failed', { code: 'upstream_failed', cause })
}
