/**
 * Writing XML text: the namespaces the codec writes, and escaping. Values come from
 * configuration or from a remote catalog, so characters XML 1.0 cannot carry are replaced.
 */

export const SOAP11_ENVELOPE_NS = 'http://schemas.xmlsoap.org/soap/envelope/'
export const SOAP12_ENVELOPE_NS = 'http://www.w3.org/2003/05/soap-envelope'
export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance'
export const XSD_NS = 'http://www.w3.org/2001/XMLSchema'
export const WSDL_NS = 'http://schemas.xmlsoap.org/wsdl/'
export const WSDL_SOAP_NS = 'http://schemas.xmlsoap.org/wsdl/soap/'
export const SOAP_HTTP_TRANSPORT = 'http://schemas.xmlsoap.org/soap/http'
export const SOAP_ACTOR_NEXT = 'http://schemas.xmlsoap.org/soap/actor/next'

export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>'

/** Content type of every SOAP 1.1 response and of the WSDL. */
export const SOAP_CONTENT_TYPE = 'text/xml; charset=utf-8'

// Characters outside the XML 1.0 `Char` production: C0 controls but tab, LF and CR; lone
// surrogates; U+FFFE and U+FFFF.
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }

/** Escapes character data (`&`, `<`, `>`) and drops characters XML cannot carry (as U+FFFD). */
export function escapeText(value: string): string {
  return value.replace(INVALID_XML_CHARS, '\uFFFD').replace(/[&<>]/g, (c) => TEXT_ESCAPES[c] ?? c)
}

/** Escapes an attribute value written between double quotes. */
export function escapeAttribute(value: string): string {
  return value
    .replace(INVALID_XML_CHARS, '\uFFFD')
    .replace(/[&<>"]/g, (c) => TEXT_ESCAPES[c] ?? c)
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
}

/** Whether a string is a valid XML NCName (element and type names of a service table). */
export function isNcName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)
}
