/**
 * GET /catalog?wsdl over a real socket: the document is well-formed XML (strict, namespace-
 * aware parse) and names exactly the ports, bindings, operations, types and enumerations of
 * the spec, with QNames that resolve to the catalog's namespace.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import sax from 'sax'
import type { TestGateway } from '../support/gateway.js'
import { CATALOG_NS, startCatalogGateway } from './catalog-gateway.js'

const WSDL = 'http://schemas.xmlsoap.org/wsdl/'
const WSDL_SOAP = 'http://schemas.xmlsoap.org/wsdl/soap/'
const XS = 'http://www.w3.org/2001/XMLSchema'

interface El {
  uri: string
  local: string
  attrs: Record<string, string>
  /** In-scope namespace bindings (prefix → uri). */
  ns: Record<string, string>
  children: El[]
}

function parse(xml: string): El {
  const parser = sax.parser(true, { xmlns: true })
  const root: El = { uri: '', local: '#doc', attrs: {}, ns: {}, children: [] }
  const stack: El[] = [root]
  parser.onerror = (e) => {
    throw e
  }
  parser.onopentag = (node) => {
    const tag = node as sax.QualifiedTag
    const attrs: Record<string, string> = {}
    for (const a of Object.values(tag.attributes))
      if (a.prefix !== 'xmlns' && a.name !== 'xmlns') attrs[a.name] = a.value
    // sax chains each element's bindings to its parent's by prototype: copy them all.
    const ns: Record<string, string> = {}
    for (const prefix in tag.ns) ns[prefix] = tag.ns[prefix]!
    const el: El = { uri: tag.uri, local: tag.local, attrs, ns, children: [] }
    stack[stack.length - 1]!.children.push(el)
    stack.push(el)
  }
  parser.onclosetag = () => void stack.pop()
  parser.write(xml).close()
  return root.children[0]!
}

function kids(el: El, uri: string, local: string): El[] {
  return el.children.filter((c) => c.uri === uri && c.local === local)
}

function only(el: El, uri: string, local: string): El {
  const found = kids(el, uri, local)
  assert.is(found.length, 1, `exactly one ${local} in ${el.local}`)
  return found[0]!
}

/** Resolves a QName attribute value to `{uri}local`. */
function qname(el: El, value: string | undefined): string {
  assert.type(value, 'string')
  const [prefix, local] = value!.includes(':') ? value!.split(':') : ['', value!]
  const uri = el.ns[prefix!]
  assert.type(uri, 'string', `prefix '${prefix}' of '${value}' is declared`)
  return `{${uri}}${local}`
}

const T = (local: string) => `{${CATALOG_NS}}${local}`
const XSQ = (local: string) => `{${XS}}${local}`

const OPERATIONS = [
  'GetMessageVersion',
  'GetMessageFormats',
  'GetTokenServiceURL',
  'GetFolders',
  'GetServiceDescriptions',
  'RequiresTokens',
  'GetServiceDescriptionsEx',
]

/** Operation → [input fields, output fields] as `name:{type}`. */
const SIGNATURES: Record<string, [string[], string[]]> = {
  GetMessageVersion: [[], [`MessageVersion:${T('gisPlatformVersion')}`]],
  GetMessageFormats: [[], [`MessageFormats:${T('gisServiceCatalogMessageFormat')}`]],
  GetTokenServiceURL: [[], [`TokenServiceURL:${XSQ('string')}`]],
  GetFolders: [[], [`FolderNames:${T('ArrayOfString')}`]],
  GetServiceDescriptions: [[], [`ServiceDescriptions:${T('ArrayOfServiceDescription')}`]],
  RequiresTokens: [[], [`Result:${XSQ('boolean')}`]],
  GetServiceDescriptionsEx: [
    [`FolderName:${XSQ('string')}`],
    [`ServiceDescriptions:${T('ArrayOfServiceDescription')}`],
  ],
}

/** The sequence of an element declaration or complex type, as `name:{type}[min..max]`. */
function sequenceOf(complexType: El): string[] {
  const seqs = kids(complexType, XS, 'sequence')
  if (seqs.length === 0) return []
  return kids(seqs[0]!, XS, 'element').map((e) => {
    const occurs =
      e.attrs.minOccurs !== undefined || e.attrs.maxOccurs !== undefined
        ? `[${e.attrs.minOccurs ?? '1'}..${e.attrs.maxOccurs ?? '1'}]`
        : ''
    return `${e.attrs.name}:${qname(e, e.attrs.type)}${occurs}`
  })
}

let gw: TestGateway
let doc: El
let contentType: string | null

const test = suite('e2e catalog: the WSDL')

test.before(async () => {
  gw = await startCatalogGateway()
  const res = await fetch(`${gw.url}/catalog?wsdl`)
  assert.is(res.status, 200)
  contentType = res.headers.get('content-type')
  doc = parse(await res.text())
})
test.after(async () => gw.close())

test('served as text/xml; a WSDL 1.1 definitions with the catalog target namespace', () => {
  assert.is(contentType, 'text/xml; charset=utf-8')
  assert.is(doc.uri, WSDL)
  assert.is(doc.local, 'definitions')
  assert.is(doc.attrs.targetNamespace, CATALOG_NS)
  // No `tns` prefix (node-soap ignores it): the catalog namespace is bound to `gis`.
  assert.is(doc.ns.gis, CATALOG_NS)
  assert.is(doc.ns.tns, undefined)
})

test('types: exactly the spec enumerations, complex types and elements; locals unqualified', () => {
  const schema = only(only(doc, WSDL, 'types'), XS, 'schema')
  assert.is(schema.attrs.targetNamespace, CATALOG_NS)
  assert.is(schema.attrs.elementFormDefault, undefined)

  const simple = kids(schema, XS, 'simpleType')
  assert.equal(
    simple.map((s) => s.attrs.name),
    ['gisServiceCatalogMessageFormat', 'gisPlatformVersion'],
  )
  const enumeration = (s: El) => {
    const r = only(s, XS, 'restriction')
    assert.is(qname(r, r.attrs.base), XSQ('string'))
    return kids(r, XS, 'enumeration').map((e) => e.attrs.value)
  }
  assert.equal(enumeration(simple[0]!), [
    'gisServiceCatalogMessageFormatSoap',
    'gisServiceCatalogMessageFormatBin',
    'gisServiceCatalogMessageFormatSoapOrBin',
  ])
  assert.equal(enumeration(simple[1]!), [
    'gisPlatformVersion83',
    'gisPlatformVersion90',
    'gisPlatformVersion92',
    'gisPlatformVersion93',
    'gisPlatformVersion10',
    'gisPlatformVersion101',
    'gisPlatformVersion103',
    'gisPlatformVersion104',
    'gisPlatformVersion105',
    'gisPlatformVersion106',
    'gisPlatformVersion107',
  ])

  const complex = kids(schema, XS, 'complexType')
  assert.equal(
    complex.map((c) => c.attrs.name),
    ['ArrayOfString', 'ServiceDescription', 'ArrayOfServiceDescription'],
  )
  assert.equal(sequenceOf(complex[0]!), [`String:${XSQ('string')}[0..unbounded]`])
  assert.equal(
    sequenceOf(complex[1]!),
    ['Name', 'Type', 'Url', 'ParentType', 'Capabilities', 'Description'].map((f) => `${f}:${XSQ('string')}`),
  )
  assert.equal(sequenceOf(complex[2]!), [`ServiceDescription:${T('ServiceDescription')}[0..unbounded]`])

  const elements = kids(schema, XS, 'element')
  assert.equal(
    elements.map((e) => e.attrs.name),
    OPERATIONS.flatMap((op) => [op, `${op}Response`]),
  )
  for (const op of OPERATIONS) {
    const [input, output] = SIGNATURES[op]!
    const decl = (name: string) => only(elements.find((e) => e.attrs.name === name)!, XS, 'complexType')
    assert.equal(sequenceOf(decl(op)), input, `${op} input`)
    assert.equal(sequenceOf(decl(`${op}Response`)), output, `${op} output`)
  }
  // No minOccurs anywhere but the two arrays.
  const all: El[] = []
  const walk = (e: El) => {
    all.push(e)
    e.children.forEach(walk)
  }
  walk(schema)
  assert.is(all.filter((e) => e.attrs.minOccurs !== undefined || e.attrs.nillable !== undefined).length, 2)
})

test('messages: <Op>In / <Op>Out, one part `parameters` each, pointing at the wrapper elements', () => {
  const messages = kids(doc, WSDL, 'message')
  assert.equal(
    messages.map((m) => m.attrs.name),
    OPERATIONS.flatMap((op) => [`${op}In`, `${op}Out`]),
  )
  for (const m of messages) {
    const part = only(m, WSDL, 'part')
    assert.is(part.attrs.name, 'parameters')
    const op = m.attrs.name!.replace(/(In|Out)$/, '')
    assert.is(qname(part, part.attrs.element), T(m.attrs.name!.endsWith('In') ? op : `${op}Response`))
  }
})

test('portType ServiceCatalogPort: the seven operations in the original order', () => {
  const portType = only(doc, WSDL, 'portType')
  assert.is(portType.attrs.name, 'ServiceCatalogPort')
  const ops = kids(portType, WSDL, 'operation')
  assert.equal(
    ops.map((o) => o.attrs.name),
    OPERATIONS,
  )
  for (const o of ops) {
    assert.is(qname(only(o, WSDL, 'input'), only(o, WSDL, 'input').attrs.message), T(`${o.attrs.name}In`))
    assert.is(qname(only(o, WSDL, 'output'), only(o, WSDL, 'output').attrs.message), T(`${o.attrs.name}Out`))
  }
})

test('binding ServiceCatalogBinding: SOAP 1.1 over HTTP, document/literal, soapAction "" everywhere', () => {
  const binding = only(doc, WSDL, 'binding')
  assert.is(binding.attrs.name, 'ServiceCatalogBinding')
  assert.is(qname(binding, binding.attrs.type), T('ServiceCatalogPort'))
  const soapBinding = only(binding, WSDL_SOAP, 'binding')
  assert.equal(soapBinding.attrs, { style: 'document', transport: 'http://schemas.xmlsoap.org/soap/http' })
  const ops = kids(binding, WSDL, 'operation')
  assert.equal(
    ops.map((o) => o.attrs.name),
    OPERATIONS,
  )
  for (const o of ops) {
    assert.equal(only(o, WSDL_SOAP, 'operation').attrs, { soapAction: '', style: 'document' })
    assert.equal(only(only(o, WSDL, 'input'), WSDL_SOAP, 'body').attrs, { use: 'literal' })
    assert.equal(only(only(o, WSDL, 'output'), WSDL_SOAP, 'body').attrs, { use: 'literal' })
  }
})

test('service Catalog: one port ServiceCatalogPort at the catalog endpoint', () => {
  const service = only(doc, WSDL, 'service')
  assert.is(service.attrs.name, 'Catalog')
  const port = only(service, WSDL, 'port')
  assert.is(port.attrs.name, 'ServiceCatalogPort')
  assert.is(qname(port, port.attrs.binding), T('ServiceCatalogBinding'))
  // public_url is empty in the embedded default: the address is the URL the WSDL was asked at.
  assert.is(only(port, WSDL_SOAP, 'address').attrs.location, `${gw.url}/catalog`)
})

test('a configured public_url is the address', async () => {
  const other = await startCatalogGateway({
    files: { 'config/catalog.yaml': `namespace: ${CATALOG_NS}\npublic_url: https://gis.example.org/catalog\n` },
  })
  try {
    const res = await fetch(`${other.url}/catalog?WSDL`)
    const port = only(only(parse(await res.text()), WSDL, 'service'), WSDL, 'port')
    assert.is(only(port, WSDL_SOAP, 'address').attrs.location, 'https://gis.example.org/catalog')
  } finally {
    await other.close()
  }
})

test.run()
