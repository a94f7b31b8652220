/**
 * Parses a SOAP 1.1 request envelope with `sax` (strict, namespace-aware) into a SoapCall.
 *
 * Security: any DOCTYPE or other markup declaration is refused as soon as sax reports it, so
 * no DTD is ever read; `strictEntities` limits entity references to the five predefined ones
 * (sax never resolves or fetches anything external); processing instructions other than the
 * leading XML declaration are refused; element depth is bounded here and the body size by
 * the caller. Every refusal throws a SoapFault, which stops the parse at once.
 */
import sax from 'sax'
import type { QualifiedAttribute, QualifiedTag, SAXOptions } from 'sax'
import type { SoapCall, SoapElement, SoapHeaderEntry } from '../../protocols/soap/contract.js'
import { clientFault, SoapFault } from '../../protocols/soap/fault.js'
import { SOAP12_ENVELOPE_NS, XSI_NS } from './xml-writer.js'
import { SOAP11_ENVELOPE_NS } from '../../protocols/soap/xml-text.js'

export interface ParseLimits {
  /** Deepest element nesting allowed; the Envelope is depth 1. */
  readonly maxDepth: number
}

/** sax options our @types/sax does not list (sax ≥ 1.3 supports them). */
type StrictSaxOptions = SAXOptions & { strictEntities: boolean; unparsedEntities: boolean }

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Decodes the request bytes. SOAP 1.1 over HTTP is UTF-8 in practice (and node-soap, .NET and
 * ArcGIS clients send UTF-8); any other declared or BOM-signalled encoding is refused.
 */
export function decodeRequestText(bytes: Uint8Array): string {
  if (bytes.length >= 2 && ((bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0xff && bytes[1] === 0xfe))) {
    throw clientFault('Only UTF-8 requests are supported.', 'UnsupportedEncoding')
  }
  let text: string
  try {
    text = utf8.decode(bytes) // strips a UTF-8 BOM
  } catch {
    throw clientFault('The request is not valid UTF-8.', 'MalformedXml')
  }
  const declaration = /^\s*<\?xml\s[^>]*?encoding\s*=\s*["']([^"']*)["']/.exec(text)
  const encoding = declaration?.[1]?.toLowerCase()
  if (encoding !== undefined && encoding !== 'utf-8' && encoding !== 'utf8' && encoding !== 'us-ascii') {
    throw clientFault(
      `Unsupported encoding '${declaration?.[1] ?? ''}': only UTF-8 is supported.`,
      'UnsupportedEncoding',
    )
  }
  return text
}

/** An element under construction. */
interface Frame {
  readonly local: string
  readonly namespace: string
  readonly attributes: Readonly<Record<string, QualifiedAttribute>>
  text: string
  readonly children: SoapElement[]
  /** What this element is in the envelope's structure. */
  readonly role: 'envelope' | 'header' | 'body' | 'header-entry' | 'body-child' | 'content' | 'trailer'
}

function attribute(
  tag: { attributes: Readonly<Record<string, QualifiedAttribute>> },
  uri: string,
  local: string,
): string | undefined {
  for (const name in tag.attributes) {
    const a = tag.attributes[name]
    if (a !== undefined && a.uri === uri && a.local === local) return a.value
  }
  return undefined
}

function isNil(attributes: Readonly<Record<string, QualifiedAttribute>>): boolean {
  const nil = attribute({ attributes }, XSI_NS, 'nil')?.trim()
  return nil === 'true' || nil === '1'
}

function mustUnderstandOf(attributes: Readonly<Record<string, QualifiedAttribute>>, name: string): boolean {
  const value = attribute({ attributes }, SOAP11_ENVELOPE_NS, 'mustUnderstand')
  if (value === undefined) return false
  const v = value.trim()
  if (v === '1' || v === 'true') return true
  if (v === '0' || v === 'false') return false
  throw clientFault(`Invalid soap:mustUnderstand value on header '${name}': expected "0" or "1".`, 'InvalidRequest')
}

function describeQName(local: string, namespace: string): string {
  return namespace === '' ? local : `{${namespace}}${local}`
}

function hasNonWhitespace(text: string): boolean {
  return /[^ \t\r\n]/.test(text)
}

/** Parses a SOAP 1.1 envelope. Throws SoapFault for anything it refuses. */
export function parseEnvelope(text: string, limits: ParseLimits, soapAction?: string): SoapCall {
  const options: StrictSaxOptions = { xmlns: true, strictEntities: true, unparsedEntities: false, position: true }
  const parser = sax.parser(true, options)

  const stack: Frame[] = []
  let sawRoot = false
  let sawHeader = false
  let sawBody = false
  let bodyClosed = false
  const bodyChildren: SoapElement[] = []
  const headers: SoapHeaderEntry[] = []

  const malformed = (message: string): SoapFault =>
    clientFault(`Malformed XML at line ${parser.line + 1}, column ${parser.column + 1}: ${message}`, 'MalformedXml')

  parser.onerror = (err: Error) => {
    const first = err.message.split('\n')[0] ?? 'parse error'
    throw malformed(first)
  }
  parser.ondoctype = () => {
    throw clientFault('A DOCTYPE is not allowed in a SOAP message.', 'DoctypeForbidden')
  }
  parser.onsgmldeclaration = () => {
    throw clientFault('Markup declarations are not allowed in a SOAP message.', 'DoctypeForbidden')
  }
  parser.onprocessinginstruction = (pi: { name: string; body: string }) => {
    if (pi.name === 'xml' && !sawRoot) return
    throw clientFault('Processing instructions are not allowed in a SOAP message.', 'ProcessingInstructionForbidden')
  }
  parser.onscript = () => {
    throw malformed('unexpected script')
  }

  const appendText = (t: string) => {
    const top = stack[stack.length - 1]
    if (top === undefined) return // whitespace outside the root; sax refuses anything else
    switch (top.role) {
      case 'envelope':
      case 'header':
        if (hasNonWhitespace(t)) throw clientFault(`Unexpected text in soap:${top.local}.`, 'NotAnEnvelope')
        return
      case 'body':
        if (hasNonWhitespace(t))
          throw clientFault('soap:Body must contain exactly one element, and no text.', 'BodyChildCount')
        return
      case 'trailer':
        return
      default:
        top.text += t
    }
  }
  parser.ontext = appendText
  parser.oncdata = appendText

  parser.onopentag = (node) => {
    const tag = node as QualifiedTag
    const depth = stack.length + 1
    if (depth > limits.maxDepth) {
      throw clientFault(`Elements are nested deeper than ${limits.maxDepth} levels.`, 'TooDeep')
    }
    const local = tag.local
    const namespace = tag.uri ?? ''
    const parent = stack[stack.length - 1]
    let role: Frame['role']

    if (parent === undefined) {
      sawRoot = true
      if (local === 'Envelope' && namespace === SOAP11_ENVELOPE_NS) {
        role = 'envelope'
      } else if (local === 'Envelope' && namespace === SOAP12_ENVELOPE_NS) {
        throw new SoapFault(
          'VersionMismatch',
          'SOAP 1.2 envelopes are not supported; send a SOAP 1.1 envelope (http://schemas.xmlsoap.org/soap/envelope/).',
        )
      } else if (local === 'Envelope' && namespace !== '') {
        throw new SoapFault(
          'VersionMismatch',
          `Unsupported envelope namespace '${namespace}'; send a SOAP 1.1 envelope.`,
        )
      } else {
        throw clientFault(
          `The root element must be a SOAP 1.1 soap:Envelope, not '${describeQName(local, namespace)}'.`,
          'NotAnEnvelope',
        )
      }
    } else if (parent.role === 'envelope') {
      const isSoap = namespace === SOAP11_ENVELOPE_NS
      if (isSoap && local === 'Header' && !sawHeader && !sawBody) {
        sawHeader = true
        role = 'header'
      } else if (isSoap && local === 'Body' && !sawBody) {
        sawBody = true
        role = 'body'
      } else if (bodyClosed && namespace !== '' && !isSoap) {
        role = 'trailer' // SOAP 1.1 §4.1: qualified elements may follow the Body; ignored
      } else {
        throw clientFault(`Unexpected element '${describeQName(local, namespace)}' in soap:Envelope.`, 'NotAnEnvelope')
      }
    } else if (parent.role === 'header') {
      role = 'header-entry'
    } else if (parent.role === 'body') {
      role = 'body-child'
    } else if (parent.role === 'trailer') {
      role = 'trailer'
    } else {
      role = 'content'
    }
    stack.push({ local, namespace, attributes: tag.attributes, text: '', children: [], role })
  }

  parser.onclosetag = () => {
    const frame = stack.pop()
    if (frame === undefined) return
    const parent = stack[stack.length - 1]
    switch (frame.role) {
      case 'body':
        bodyClosed = true
        return
      case 'envelope':
      case 'header':
      case 'trailer':
        return
    }
    const element: SoapElement = {
      local: frame.local,
      namespace: frame.namespace,
      text: frame.text,
      children: frame.children,
      nil: isNil(frame.attributes),
    }
    if (frame.role === 'header-entry') {
      headers.push({
        local: frame.local,
        namespace: frame.namespace,
        mustUnderstand: mustUnderstandOf(frame.attributes, describeQName(frame.local, frame.namespace)),
        actor: attribute(frame, SOAP11_ENVELOPE_NS, 'actor'),
        element,
      })
    } else if (frame.role === 'body-child') {
      if (hasNonWhitespace(frame.text)) {
        throw clientFault(
          `Unexpected text in '${frame.local}': its content must be argument elements.`,
          'InvalidArgument',
        )
      }
      bodyChildren.push(element)
    } else if (parent !== undefined) {
      parent.children.push(element)
    }
  }

  parser.write(text).close()

  if (!sawRoot) throw clientFault('The request body is empty; a SOAP 1.1 envelope is expected.', 'NotAnEnvelope')
  if (!sawBody) throw clientFault('The envelope has no soap:Body.', 'NoBody')
  const [operation, ...rest] = bodyChildren
  if (operation === undefined)
    throw clientFault('soap:Body is empty; it must contain exactly one element.', 'BodyChildCount')
  if (rest.length > 0) {
    throw clientFault(`soap:Body has ${bodyChildren.length} elements; it must contain exactly one.`, 'BodyChildCount')
  }
  return {
    operation: operation.local,
    namespace: operation.namespace,
    args: operation.children,
    headers,
    soapAction,
  }
}

/** The SOAPAction header without its quotes (`"urn:x"` → `urn:x`; `""` → ``). */
export function unquoteSoapAction(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const v = value.trim()
  return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v
}
