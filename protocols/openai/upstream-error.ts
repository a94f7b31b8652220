/**
 * Model servers report errors in several shapes: vLLM's nested `{"error":{message,type,code}}`,
 * SGLang's and older vLLM's flat `{"object":"error","message",…}`, TGI's `{"error":"…",
 * "error_type"}`, FastAPI's `{"detail":…}`. The gateway passes the status and message through
 * (the backends service's one upstream call reads them here).
 */
import { GatewayError } from '../../kernel/contract/index.js'

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
