/**
 * XML text as SOAP documents write it: the declaration, the envelope namespace, the content
 * type, and escaping. Values come from configuration or from a remote catalog, so characters
 * XML 1.0 cannot carry are replaced.
 */

export const SOAP11_ENVELOPE_NS = 'http://schemas.xmlsoap.org/soap/envelope/'

export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>'

/** Content type of every SOAP 1.1 response, fault and WSDL. */
export const SOAP_CONTENT_TYPE = 'text/xml; charset=utf-8'

// Characters outside the XML 1.0 `Char` production: C0 controls but tab, LF and CR; lone
// surrogates; U+FFFE and U+FFFF.
const INVALID_XML_CHARS =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

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
