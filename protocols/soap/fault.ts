/**
 * SOAP 1.1 faults: the error a SOAP step raises for what it refuses itself, the mapping of any
 * error to a fault, the fault document, and the `soap` error style with which the kernel's
 * boundary renders every error of a pipeline declared `errors: soap`.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import type { SoapFaultCode, SoapFaultDetailCode } from './contract.js'
import { SOAP11_ENVELOPE_NS, SOAP_CONTENT_TYPE, XML_DECLARATION, escapeAttribute, escapeText } from './xml-text.js'

/** The detail namespace when the pipeline names none. */
export const DEFAULT_FAULT_NAMESPACE = 'urn:sluice:soap-fault'

/**
 * A fault decided by a SOAP step itself (envelope-level problems). It is a GatewayError, so it
 * travels to the kernel's boundary like any other error: 400 for what the client sent, 500 for
 * a server fault (the `soap` style puts both on the wire as HTTP 500, as SOAP 1.1 §6.2 says).
 */
export class SoapFault extends GatewayError {
  readonly faultCode: SoapFaultCode
  /** Detail code; none for VersionMismatch and MustUnderstand (header-level faults carry no detail). */
  readonly detailCode: SoapFaultDetailCode | undefined

  constructor(faultCode: SoapFaultCode, message: string, detailCode?: SoapFaultDetailCode) {
    super(faultCode === 'Server' ? 500 : 400, message)
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
}

/**
 * Maps an error to a fault:
 * - SoapFault: as decided;
 * - GatewayError 4xx: `soap:Client`, its message, its `type` as detail code when it is one;
 * - GatewayError 5xx: `soap:Server`, its message (a GatewayError message is meant for the
 *   client), but for a 500, whose message says nothing of the cause.
 */
export function describeFault(err: GatewayError): FaultDescription {
  if (err instanceof SoapFault)
    return { faultCode: err.faultCode, faultString: err.message, detailCode: err.detailCode }
  const fromType = isDetailCode(err.type) ? err.type : undefined
  if (err.status >= 400 && err.status < 500) {
    const detailCode: SoapFaultDetailCode =
      fromType ??
      (err.status === 413 ? 'TooLarge' : err.status === 401 || err.status === 403 ? 'Unauthorized' : 'InvalidRequest')
    return { faultCode: 'Client', faultString: err.message, detailCode }
  }
  const detailCode: SoapFaultDetailCode =
    fromType ?? (err.status === 502 || err.status === 503 || err.status === 504 ? 'Unavailable' : 'Internal')
  return { faultCode: 'Server', faultString: err.status === 500 ? 'Internal server error.' : err.message, detailCode }
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

/**
 * The `soap` error style: every error is a fault sent with HTTP 500 (SOAP 1.1 §6.2), except a
 * 404 or 405, which say that no SOAP endpoint is there at all (a GET without `?wsdl`) and keep
 * their status.
 */
export function soapErrorStyle(detailNamespace: string = DEFAULT_FAULT_NAMESPACE) {
  return (err: GatewayError) => ({
    status: err.status === 404 || err.status === 405 ? err.status : 500,
    contentType: SOAP_CONTENT_TYPE,
    body: renderFault(describeFault(err), detailNamespace),
  })
}
