/**
 * The call to the transcription server: the upload sent on as multipart/form-data to its
 * OpenAI-compatible /v1/audio/transcriptions or /v1/audio/translations, over the backend's
 * keep-alive pool. Errors the server answers pass through with its status and message.
 */
import { upstreamHeaders } from '../../kernel/services/backends/pools.js'
import { FormData, request } from 'undici'
import type { Exchange } from '../../kernel/exchange.js'
import type { Kernel } from '../../kernel/kernel.js'
import { GatewayError } from '../../kernel/errors.js'
import { transportFailure, upstreamError } from '../../kernel/services/backends/upstream-error.js'

export interface UpstreamForm {
  readonly file: { readonly data: Buffer; readonly filename?: string; readonly contentType?: string }
  /** Text fields, sent as they are (model, response_format, language, prompt …). */
  readonly fields: Record<string, string | string[]>
}

export interface UpstreamAnswer {
  readonly contentType: string
  readonly text: string
}

export async function requestTranscript(kernel: Kernel, ex: Exchange, backendName: string, task: 'transcribe' | 'translate', form: UpstreamForm): Promise<UpstreamAnswer> {
  const backend = kernel.backends.get(backendName)
  const body = new FormData()
  for (const [name, value] of Object.entries(form.fields)) {
    for (const v of Array.isArray(value) ? value : [value]) body.append(name, v)
  }
  const type = form.file.contentType ?? 'application/octet-stream'
  body.append('file', new Blob([form.file.data], { type }), form.file.filename ?? 'audio')
  const headers = upstreamHeaders(ex, backend.config)
  const path = task === 'translate' ? '/v1/audio/translations' : '/v1/audio/transcriptions'
  let res
  try {
    res = await request(`${backend.baseUrl}${path}`, { dispatcher: backend.dispatcher, method: 'POST', headers, body, signal: ex.signal })
  } catch (err) {
    throw transportFailure(ex.signal, err, false)
  }
  let text: string
  try {
    text = await res.body.text()
  } catch (err) {
    throw transportFailure(ex.signal, err, false)
  }
  if (res.statusCode >= 400) throw upstreamError(res.statusCode, text)
  const ct = res.headers['content-type']
  const contentType = (Array.isArray(ct) ? ct[0] : ct) ?? 'text/plain'
  if (res.statusCode !== 200) throw new GatewayError(502, 'upstream request failed', { code: 'upstream_failed', cause: new Error(`status ${res.statusCode}`) })
  return { contentType, text }
}
