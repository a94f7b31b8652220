/**
 * Whether an answer is one the gateway may give to hostile input. Allowed: a success (the input
 * was valid after all), or a 4xx with the documented body (`{"error":{"message","type"}}` on
 * /v1, /admin and unknown paths; a SOAP 1.1 fault on /catalog). Never a 500, and a 502, 503 or
 * 504 only where the spec names it for what the client sent. On /catalog every fault is HTTP 500
 * (SOAP 1.1 §6.2), so there the fault code decides: `soap:Server` is the gateway's own fault.
 * A stream that ends with the in-band error event is a failure hidden in a 200.
 */
import type { Target } from './door.js'

export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  readonly body: Buffer
}

/** 5xx the spec documents as the answer to something the client chose (not a fault of ours). */
const documented5xx: readonly { status: number; message: RegExp; routes?: readonly string[] }[] = [
  // "Chat with model = auto … When no model can serve it: 503."
  { status: 503, message: /^no model is available to satisfy the auto request$/ },
  // Verdicts: "Use another model, an instruction-tuned model": a model that cannot answer labels.
  {
    status: 502,
    message: /^(backend returned no logprobs|model produced no recognizable answer label)/,
    routes: ['verdicts'],
  },
]

const REQUEST_ID = 'x-gateway-request-id'

/** A fault's code and string, read loosely (a fault must be findable, not pretty). */
export function soapFaultOf(xml: string): { faultcode: string; faultstring: string } | undefined {
  if (!/<(\w+:)?Envelope[\s>]/.test(xml)) return undefined
  const code = /<faultcode>([^<]*)<\/faultcode>/.exec(xml)
  const text = /<faultstring>([^<]*)<\/faultstring>/.exec(xml)
  if (!code || !text) return undefined
  return { faultcode: code[1]!, faultstring: text[1]! }
}

function openaiError(body: Buffer): { message: string; type: string } | undefined {
  try {
    const e = (JSON.parse(body.toString('utf8')) as { error?: { message?: unknown; type?: unknown } }).error
    if (e && typeof e.message === 'string' && e.message !== '' && typeof e.type === 'string' && e.type !== '')
      return { message: e.message, type: e.type }
  } catch {
    // not JSON: judged below
  }
  return undefined
}

/** Undefined when the answer is acceptable; else why not, and whether the gateway made a 5xx. */
export function judge(
  target: Target,
  method: string,
  answer: Answer,
): { reason: string; gateway5xx: boolean } | undefined {
  const { status, headers, body } = answer
  if (headers[REQUEST_ID] === undefined) return { reason: `${status} without ${REQUEST_ID}`, gateway5xx: status >= 500 }
  const text = body.toString('utf8')
  const type = String(headers['content-type'] ?? '')
  if (status < 400) {
    if (type.startsWith('text/event-stream') && /^data: \{"error"/m.test(text))
      return {
        reason: `a ${status} stream ended with an error event: ${text.slice(text.indexOf('data: {"error"'), text.indexOf('data: {"error"') + 200)}`,
        gateway5xx: true,
      }
    return undefined
  }
  if (method === 'HEAD') return status >= 500 ? { reason: `${status} to HEAD`, gateway5xx: true } : undefined
  if (target.errors === 'soap' && status === 500) {
    const fault = soapFaultOf(text)
    if (!fault) return { reason: `500 that is not a SOAP fault: ${text.slice(0, 200)}`, gateway5xx: true }
    if (!['soap:Client', 'soap:VersionMismatch', 'soap:MustUnderstand'].includes(fault.faultcode))
      return { reason: `${fault.faultcode} fault: ${fault.faultstring}`, gateway5xx: true }
    return undefined
  }
  const error = target.errors === 'soap' ? undefined : openaiError(body)
  if (status >= 500) {
    const allowed =
      error &&
      documented5xx.some(
        (d) => d.status === status && d.message.test(error.message) && (!d.routes || d.routes.includes(target.routeId)),
      )
    return allowed ? undefined : { reason: `${status}: ${text.slice(0, 200)}`, gateway5xx: true }
  }
  if (target.errors === 'soap') {
    // A 4xx from /catalog: the kernel's own refusals before the codec (405, unknown path) are OpenAI bodies; anything else must be a fault.
    if (soapFaultOf(text) || openaiError(body)) return undefined
    return {
      reason: `${status} that is neither a SOAP fault nor an error body: ${text.slice(0, 200)}`,
      gateway5xx: false,
    }
  }
  if (!error) return { reason: `${status} without the documented error body: ${text.slice(0, 200)}`, gateway5xx: false }
  return undefined
}
