/**
 * soap-codec: makes a route speak SOAP 1.1. Knows nothing of any particular service.
 *
 * In:  `POST` → reads the raw body (bounded), parses the envelope (no DOCTYPE, no entities
 *      beyond the predefined five, bounded depth), checks mustUnderstand headers, and puts the
 *      call in `ex.state.soap`. `GET ?wsdl` → puts `{ kind: 'describe' }` there.
 * Out: renders `ex.state.soapResult` (set by the service step) as a document/literal response
 *      or as the WSDL. Errors are thrown, and the kernel's boundary renders them as SOAP 1.1
 *      faults because the pipeline says `errors: soap` (protocols/soap/fault.ts).
 */
import { GatewayError, definePlugin, reply, type Exchange, type Reply } from '../../kernel/contract/index.js'
import type { SoapCall, SoapHeaderEntry } from '../../protocols/soap/contract.js'
import { decodeRequestText, parseEnvelope, unquoteSoapAction } from './envelope-parser.js'
import { clientFault, SoapFault } from '../../protocols/soap/fault.js'
import { SOAP_CONTENT_TYPE } from '../../protocols/soap/xml-text.js'
import { renderResponse } from './response-writer.js'
import { configSchema } from './schema.js'
import { renderWsdl } from './wsdl.js'
import { SOAP_ACTOR_NEXT } from './xml-writer.js'

/** `?wsdl` (any case, with or without a value). */
export function asksForWsdl(query: URLSearchParams): boolean {
  for (const key of query.keys()) if (key.toLowerCase() === 'wsdl') return true
  return false
}

async function readRequestBytes(ex: Exchange, limit: number): Promise<Uint8Array> {
  const tooLarge = () => clientFault(`The request body exceeds the limit of ${limit} bytes.`, 'TooLarge')
  if (ex.incoming !== undefined) {
    try {
      return await ex.incoming.read(limit)
    } catch (err) {
      if (err instanceof GatewayError && err.status === 413) throw tooLarge()
      throw err
    }
  }
  // In-process calls (kernel.call) pass the envelope as the body.
  const body = ex.body
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body instanceof Uint8Array ? body : undefined
  if (bytes === undefined) throw new Error('soap-codec: the route must be declared `body: raw`')
  if (bytes.length > limit) throw tooLarge()
  return bytes
}

function headerKey(entry: SoapHeaderEntry): string {
  return `{${entry.namespace}}${entry.local}`
}

function checkMustUnderstand(call: SoapCall, understood: ReadonlySet<string>): void {
  for (const entry of call.headers) {
    if (!entry.mustUnderstand) continue
    // Entries addressed to another actor are not ours to understand (SOAP 1.1 §4.2.2).
    if (entry.actor !== undefined && entry.actor !== '' && entry.actor !== SOAP_ACTOR_NEXT) continue
    if (understood.has(headerKey(entry)) || understood.has(entry.local)) continue
    throw new SoapFault(
      'MustUnderstand',
      `Header '${headerKey(entry)}' is marked mustUnderstand and is not understood.`,
    )
  }
}

/** The address for the WSDL when the service publishes none: the URL it was asked at. */
function requestAddress(ex: Exchange): string {
  const host = ex.header('host') ?? 'localhost'
  return `http://${host}${ex.path}`
}

/** A later step that set an error reply itself instead of a SOAP result or throwing. */
function errorFromReply(r: Reply): GatewayError | undefined {
  if (r.status < 400) return undefined
  let message = r.status < 500 ? 'The request was refused.' : 'Internal server error.'
  if (r.kind === 'json' && typeof r.body === 'object' && r.body !== null) {
    const error = (r.body as { error?: { message?: unknown } }).error
    if (typeof error?.message === 'string') message = error.message
  }
  return new GatewayError(r.status, message)
}

export default definePlugin({
  name: 'soap-codec',
  config: configSchema,
  provides: ['soap'],
  setup(config) {
    const understood: ReadonlySet<string> = new Set(config.understood_headers)
    const maxBytes = config.max_bytes
    const maxDepth = config.max_depth

    return {
      async request(ex, next) {
        const isGet = ex.method === 'GET' || ex.method === 'HEAD'
        if (isGet && !asksForWsdl(ex.query)) {
          throw new GatewayError(
            404,
            'This is a SOAP 1.1 endpoint: POST an envelope to it, or GET it with ?wsdl for its description.',
          )
        }
        if (isGet) {
          ex.state.soap = { kind: 'describe' }
        } else {
          const bytes = await readRequestBytes(ex, maxBytes)
          const call = parseEnvelope(decodeRequestText(bytes), { maxDepth }, unquoteSoapAction(ex.header('soapaction')))
          checkMustUnderstand(call, understood)
          ex.state.soap = { kind: 'call', call }
        }

        await next()

        const result = ex.state.soapResult
        if (result === undefined) {
          const error = ex.reply === undefined ? undefined : errorFromReply(ex.reply)
          if (ex.reply !== undefined && error === undefined) return // a later step answered on its own
          ex.reply = undefined
          throw error ?? new Error('soap-codec: no step of the route set a SOAP result')
        }
        if (result.kind === 'description') {
          if (!isGet) throw new Error('soap-codec: a service description answered a SOAP call')
          ex.reply = reply.text(
            SOAP_CONTENT_TYPE,
            renderWsdl(result.service, result.service.address ?? requestAddress(ex)),
          )
        } else {
          if (isGet) throw new Error('soap-codec: an operation result answered a WSDL request')
          ex.reply = reply.text(SOAP_CONTENT_TYPE, renderResponse(result.service, result.operation, result.values))
        }
      },
    }
  },
})
