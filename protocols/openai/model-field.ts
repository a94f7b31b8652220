/**
 * The `model` a request body names, for a body made for one model and sent to another (a
 * fallback): a JSON object's field, or a multipart form's (transcription, translation). The rest
 * of the body goes as it was.
 */
import { FormData } from 'undici'

/** The body with its `model` set to `name` (JSON text or bytes without one are left so); undefined when not a JSON object. */
export function withModel(body: string | Buffer | FormData, name: string): string | FormData | undefined {
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
    return JSON.stringify(fields)
  }
  const form = new FormData()
  for (const [field, value] of body) {
    if (field === 'model') form.append(field, name)
    else if (typeof value === 'string') form.append(field, value)
    else form.append(field, value, value.name)
  }
  return form
}
