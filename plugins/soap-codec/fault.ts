/**
 * SOAP 1.1 faults: the error the codec raises for what it refuses itself, the mapping of any
 * thrown error to a fault, and the fault document.
 */
import { GatewayError } from '../../kernel/errors.js'
import type { SoapFaultCode, SoapFaultDetailCode } from '../../protocols/soap/contract.js'
import { SOAP11_ENVELOPE_NS, escapeAttribute, escapeText, XML_DECLARATION } from './xml-writer.js'

/** A fault decided by the codec itself (envelope-level problems). */
export class SoapFault extends Error {
  readonly faultCode: SoapFaultCode
  /** Detail code; none for VersionMismatch and MustUnderstand (header-level faults carry no detail). */
  readonly detailCode: SoapFaultDetailCode | undefined

  constructor(faultCode: SoapFaultCode, message: string, detailCode?: SoapFaultDetailCode) {
    super(message)
    this.name = 'SoapFault'
    this.faultCode = faultCode
    this.detailCode = detailCode
  }
}

/** A `soap:Client` fault about the request's content. */
export function clientFault(message: string, detailCode: SoapFaultDetailCode): SoapFault {
  return new SoapFault('Client', message, detailCode)
}

const DETAIL_CODES: ReadonlySet<string> = new Set<SoapFaultDetailCode>([
  'MalformedXml',
  'DoctypeForbidden',
  'ProcessingInstructionForbidden',
  'UnsupportedEncoding',
  'TooDeep',
  'TooLarge',
  'NotAnEnvelope',
  'NoBody',
  'BodyChildCount',
  'UnknownOperation',
  'InvalidArgument',
  'UnknownFolder',
  'Unauthorized',
  'InvalidRequest',
  'Unavailable',
  'Internal',
])

function isDetailCode(value: string): value is SoapFaultDetailCode {
  return DETAIL_CODES.has(value)
}

/** What a fault says on the wire. */
export interface FaultDescription {
  readonly faultCode: SoapFaultCode
  readonly faultString: string
  readonly detailCode: SoapFaultDetailCode | undefined
  /** Server-side faults are logged with their cause; client faults are not errors of ours. */
  readonly internal: boolean
}

/**
 * Maps anything thrown on a SOAP route to a fault:
 * - SoapFault: as decided;
 * - GatewayError 4xx: `soap:Client`, its message, its `type` as detail code when it is one;
 * - GatewayError 5xx: `soap:Server`, its message (a GatewayError message is meant for the client);
 * - anything else: `soap:Server` with a message that leaks nothing.
 */
export function describeFault(err: unknown): FaultDescription {
  if (err instanceof SoapFault) {
    return { faultCode: err.faultCode, faultString: err.message, detailCode: err.detailCode, internal: err.faultCode === 'Server' }
  }
  if (err instanceof GatewayError) {
    const fromType = isDetailCode(err.type) ? err.type : undefined
    if (err.status >= 400 && err.status < 500) {
      const detailCode: SoapFaultDetailCode =
        fromType ?? (err.status === 413 ? 'TooLarge' : err.status === 401 || err.status === 403 ? 'Unauthorized' : 'InvalidRequest')
      return { faultCode: 'Client', faultString: err.message, detailCode, internal: false }
    }
    const detailCode: SoapFaultDetailCode = fromType ?? (err.status === 502 || err.status === 503 || err.status === 504 ? 'Unavailable' : 'Internal')
    return { faultCode: 'Server', faultString: err.status === 500 ? 'Internal server error.' : err.message, detailCode, internal: true }
  }
  return { faultCode: 'Server', faultString: 'Internal server error.', detailCode: 'Internal', internal: true }
}

/**
 * The fault document. `detail` (namespace-qualified entries) is present when the Body could not
 * be processed, i.e. for every fault but VersionMismatch and MustUnderstand.
 */
export function renderFault(fault: FaultDescription, detailNamespace: string): string {
  let xml =
    `${XML_DECLARATION}<soap:Envelope xmlns:soap="${SOAP11_ENVELOPE_NS}"><soap:Body><soap:Fault>` +
    `<faultcode>soap:${fault.faultCode}</faultcode><faultstring>${escapeText(fault.faultString)}</faultstring>`
  if (fault.detailCode !== undefined && fault.faultCode !== 'VersionMismatch' && fault.faultCode !== 'MustUnderstand') {
    xml += `<detail><f:error xmlns:f="${escapeAttribute(detailNamespace)}"><f:code>${fault.detailCode}</f:code></f:error></detail>`
  }
  return xml + '</soap:Fault></soap:Body></soap:Envelope>'
}
