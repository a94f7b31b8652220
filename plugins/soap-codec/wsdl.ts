/**
 * Generates a WSDL 1.1 document/literal description from the same service table the
 * responses are rendered against: simple (enumeration) types, complex types, one wrapper
 * element pair per operation, `<Op>In`/`<Op>Out` messages, the port type, a SOAP 1.1 binding
 * with `soapAction=""`, and the service with its one port.
 *
 * The schema has no `elementFormDefault`, so local elements are unqualified, as the responses
 * are; type references use the service's prefix (never `tns`, which node-soap ignores).
 */
import type { SoapField, SoapService } from '../../protocols/soap/contract.js'
import { indexService, isRepeated } from './service-table.js'
import { SOAP_HTTP_TRANSPORT, WSDL_NS, WSDL_SOAP_NS, XSD_NS } from './xml-writer.js'
import { escapeAttribute, XML_DECLARATION } from '../../protocols/soap/xml-text.js'

const rendered = new WeakMap<SoapService, Map<string, string>>()

function fieldElement(field: SoapField, prefix: string): string {
  const type = field.type.startsWith('xs:') ? field.type : `${prefix}:${field.type}`
  let occurs = ''
  if ((field.minOccurs ?? 1) !== 1) occurs += ` minOccurs="${field.minOccurs ?? 1}"`
  if (isRepeated(field))
    occurs += ` maxOccurs="${field.maxOccurs === 'unbounded' ? 'unbounded' : String(field.maxOccurs)}"`
  return `<xs:element name="${field.name}" type="${type}"${occurs}/>`
}

function sequence(fields: readonly SoapField[], prefix: string, indent: string): string[] {
  if (fields.length === 0) return []
  return [
    `${indent}<xs:sequence>`,
    ...fields.map((f) => `${indent}  ${fieldElement(f, prefix)}`),
    `${indent}</xs:sequence>`,
  ]
}

/** The WSDL text for `service`, with `address` as the port's `soap:address`. Cached per table and address. */
export function renderWsdl(service: SoapService, address: string): string {
  let byAddress = rendered.get(service)
  const cached = byAddress?.get(address)
  if (cached !== undefined) return cached

  const { prefix } = indexService(service)
  const ns = escapeAttribute(service.namespace)
  const p = prefix
  const lines: string[] = [
    XML_DECLARATION,
    `<definitions xmlns="${WSDL_NS}" xmlns:soap="${WSDL_SOAP_NS}" xmlns:xs="${XSD_NS}" xmlns:${p}="${ns}" targetNamespace="${ns}">`,
    '  <types>',
    `    <xs:schema targetNamespace="${ns}" xmlns:${p}="${ns}">`,
  ]
  for (const t of service.types) {
    if (t.kind === 'enum') {
      lines.push(`      <xs:simpleType name="${t.name}">`, '        <xs:restriction base="xs:string">')
      for (const v of t.values) lines.push(`          <xs:enumeration value="${escapeAttribute(v)}"/>`)
      lines.push('        </xs:restriction>', '      </xs:simpleType>')
    } else if (t.fields.length === 0) {
      lines.push(`      <xs:complexType name="${t.name}"/>`)
    } else {
      lines.push(
        `      <xs:complexType name="${t.name}">`,
        ...sequence(t.fields, p, '        '),
        '      </xs:complexType>',
      )
    }
  }
  for (const op of service.operations) {
    for (const [name, fields] of [
      [op.name, op.input],
      [`${op.name}Response`, op.output],
    ] as const) {
      if (fields.length === 0) {
        lines.push(`      <xs:element name="${name}"><xs:complexType/></xs:element>`)
      } else {
        lines.push(
          `      <xs:element name="${name}">`,
          '        <xs:complexType>',
          ...sequence(fields, p, '          '),
          '        </xs:complexType>',
          '      </xs:element>',
        )
      }
    }
  }
  lines.push('    </xs:schema>', '  </types>')

  for (const op of service.operations) {
    lines.push(
      `  <message name="${op.name}In"><part name="parameters" element="${p}:${op.name}"/></message>`,
      `  <message name="${op.name}Out"><part name="parameters" element="${p}:${op.name}Response"/></message>`,
    )
  }

  lines.push(`  <portType name="${service.portName}">`)
  for (const op of service.operations) {
    lines.push(
      `    <operation name="${op.name}"><input message="${p}:${op.name}In"/><output message="${p}:${op.name}Out"/></operation>`,
    )
  }
  lines.push('  </portType>')

  lines.push(
    `  <binding name="${service.bindingName}" type="${p}:${service.portName}">`,
    `    <soap:binding style="document" transport="${SOAP_HTTP_TRANSPORT}"/>`,
  )
  for (const op of service.operations) {
    lines.push(
      `    <operation name="${op.name}">`,
      '      <soap:operation soapAction="" style="document"/>',
      '      <input><soap:body use="literal"/></input>',
      '      <output><soap:body use="literal"/></output>',
      '    </operation>',
    )
  }
  lines.push('  </binding>')

  lines.push(
    `  <service name="${service.serviceName}">`,
    `    <port name="${service.portName}" binding="${p}:${service.bindingName}">`,
    `      <soap:address location="${escapeAttribute(address)}"/>`,
    '    </port>',
    '  </service>',
    '</definitions>',
    '',
  )
  const text = lines.join('\n')
  if (byAddress === undefined) {
    byAddress = new Map()
    rendered.set(service, byAddress)
  }
  if (byAddress.size < 16) byAddress.set(address, text) // addresses derived from Host headers: bounded
  return text
}
