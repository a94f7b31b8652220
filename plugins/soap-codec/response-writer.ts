/**
 * Renders an operation's result as a document/literal wrapped SOAP 1.1 response:
 * `<tns:OpResponse>` in the service namespace, unqualified children in schema order, every
 * field present, `xsi:type="tns:…"` on complex-typed elements and none on simple or enum ones.
 */
import type { SoapField, SoapRecord, SoapValue } from '../../protocols/soap/contract.js'
import { indexService, isRepeated, type IndexedService } from './service-table.js'
import type { SoapService } from '../../protocols/soap/contract.js'
import { XSD_NS, XSI_NS } from './xml-writer.js'
import { escapeAttribute, escapeText, SOAP11_ENVELOPE_NS, XML_DECLARATION } from '../../protocols/soap/xml-text.js'

/** A result that does not conform to the service table: a bug of the service step (soap:Server). */
export class ResultShapeError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ResultShapeError'
  }
}

function isRecord(value: SoapValue | undefined): value is SoapRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function simpleText(path: string, type: string, value: SoapValue | undefined): string {
  switch (type) {
    case 'xs:string':
    case 'xs:dateTime':
      if (typeof value !== 'string') throw new ResultShapeError(`${path}: expected a string`)
      return value
    case 'xs:boolean':
      if (typeof value !== 'boolean') throw new ResultShapeError(`${path}: expected a boolean`)
      return value ? 'true' : 'false'
    case 'xs:int':
    case 'xs:long':
      if (typeof value !== 'number' || !Number.isSafeInteger(value))
        throw new ResultShapeError(`${path}: expected an integer`)
      return String(value)
    case 'xs:double':
      if (typeof value !== 'number') throw new ResultShapeError(`${path}: expected a number`)
      return Number.isNaN(value) ? 'NaN' : value === Infinity ? 'INF' : value === -Infinity ? '-INF' : String(value)
    default:
      throw new ResultShapeError(`${path}: unknown type '${type}'`)
  }
}

function writeElement(
  out: string[],
  index: IndexedService,
  path: string,
  name: string,
  type: string,
  value: SoapValue | undefined,
): void {
  const named = index.types.get(type)
  if (named === undefined) {
    out.push(`<${name}>`, escapeText(simpleText(path, type, value)), `</${name}>`)
    return
  }
  if (named.kind === 'enum') {
    if (typeof value !== 'string' || !named.values.includes(value)) {
      throw new ResultShapeError(`${path}: expected one of the values of ${named.name}`)
    }
    out.push(`<${name}>`, escapeText(value), `</${name}>`)
    return
  }
  if (!isRecord(value)) throw new ResultShapeError(`${path}: expected a ${named.name} record`)
  out.push(`<${name} xsi:type="tns:${named.name}">`)
  writeFields(out, index, path, named.fields, value)
  out.push(`</${name}>`)
}

function writeFields(
  out: string[],
  index: IndexedService,
  path: string,
  fields: readonly SoapField[],
  values: SoapRecord,
): void {
  for (const field of fields) {
    const value = values[field.name]
    const fieldPath = `${path}.${field.name}`
    const min = field.minOccurs ?? 1
    if (isRepeated(field)) {
      const items = value === undefined || value === null ? [] : value
      if (!Array.isArray(items)) throw new ResultShapeError(`${fieldPath}: expected an array`)
      const max = field.maxOccurs ?? 1
      if (items.length < min || (max !== 'unbounded' && items.length > max)) {
        throw new ResultShapeError(`${fieldPath}: ${items.length} items is outside ${min}..${max}`)
      }
      for (const [i, item] of items.entries())
        writeElement(out, index, `${fieldPath}[${i}]`, field.name, field.type, item)
    } else if (value === undefined || value === null) {
      if (min > 0) throw new ResultShapeError(`${fieldPath}: missing`)
    } else {
      writeElement(out, index, fieldPath, field.name, field.type, value)
    }
  }
}

/** The whole response document. Throws ResultShapeError when `values` does not fit the table. */
export function renderResponse(service: SoapService, operationName: string, values: SoapRecord): string {
  const index = indexService(service)
  const operation = index.operations.get(operationName)
  if (operation === undefined) throw new ResultShapeError(`operation '${operationName}' is not in the service table`)
  const out: string[] = [
    XML_DECLARATION,
    `<soap:Envelope xmlns:soap="${SOAP11_ENVELOPE_NS}" xmlns:xsi="${XSI_NS}" xmlns:xsd="${XSD_NS}" xmlns:tns="${escapeAttribute(service.namespace)}">`,
    '<soap:Body>',
    `<tns:${operation.name}Response>`,
  ]
  writeFields(out, index, operation.name, operation.output, values)
  out.push(`</tns:${operation.name}Response>`, '</soap:Body></soap:Envelope>')
  return out.join('')
}
