/**
 * The call to the transcription server: the upload sent on as multipart/form-data to its
 * OpenAI-compatible /v1/audio/transcriptions or /v1/audio/translations, through the kernel's
 * one upstream call. Errors the server answers pass through with its status and message.
 */
import { FormData } from 'undici'
import { GatewayError, type Exchange, type Kernel, type UpstreamCall } from '../../kernel/contract/index.js'
import type { ModelConfig } from '../../schemas/models.schema.js'

export interface UpstreamForm {
  readonly file: { readonly data: Buffer; readonly filename?: string; readonly contentType?: string }
  /** Text fields, sent as they are (model, response_format, language, prompt …). */
  readonly fields: Record<string, string | string[]>
}

export interface UpstreamAnswer {
  readonly contentType: string
  readonly text: string
}

/** The call that asks `model` for a transcript (or translation) of the upload, as a multipart form. */
export function transcriptCall(model: ModelConfig, task: 'transcribe' | 'translate', form: UpstreamForm): UpstreamCall {
  const body = new FormData()
  for (const [name, value] of Object.entries(form.fields)) {
    for (const v of Array.isArray(value) ? value : [value]) body.append(name, v)
  }
  const type = form.file.contentType ?? 'application/octet-stream'
  body.append('file', new Blob([form.file.data], { type }), form.file.filename ?? 'audio')
  const path = task === 'translate' ? '/v1/audio/translations' : '/v1/audio/transcriptions'
  return { model, path, body }
}

/** `refit`: the call for a fallback model (models.yaml `fallbacks`), asked in its own formats. */
export async function requestTranscript(
  kernel: Kernel,
  ex: Exchange,
  call: UpstreamCall,
  refit?: UpstreamCall['refit'],
): Promise<UpstreamAnswer> {
  const res = await kernel.backends.call(ex, refit ? { ...call, refit } : call)
  const text = await res.text()
  if (res.status !== 200)
    throw new GatewayError(502, 'upstream request failed', {
      code: 'upstream_failed',
      cause: new Error(`status ${res.status}`),
    })
  return { contentType: res.contentType ?? 'text/plain', text }
}
