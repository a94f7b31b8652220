/**
 * The namespaces the codec writes beyond the envelope's, and XML names. The envelope
 * namespace, the declaration and escaping are the SOAP vocabulary's (protocols/soap/xml-text.ts),
 * shared with the kernel's fault renderer.
 */

export const SOAP12_ENVELOPE_NS = 'http://www.w3.org/2003/05/soap-envelope'
export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance'
export const XSD_NS = 'http://www.w3.org/2001/XMLSchema'
export const WSDL_NS = 'http://schemas.xmlsoap.org/wsdl/'
export const WSDL_SOAP_NS = 'http://schemas.xmlsoap.org/wsdl/soap/'
export const SOAP_HTTP_TRANSPORT = 'http://schemas.xmlsoap.org/soap/http'
export const SOAP_ACTOR_NEXT = 'http://schemas.xmlsoap.org/soap/actor/next'

/** Whether a string is a valid XML NCName (element and type names of a service table). */
export function isNcName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)
}
