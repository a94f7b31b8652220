import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { SoapService } from '../../../protocols/soap/contract.js'
import { renderResponse, ResultShapeError } from '../../../plugins/soap-codec/response-writer.js'
import { renderWsdl } from '../../../plugins/soap-codec/wsdl.js'
import { tree, child } from '../../support/xml-tree.js'
import { escapeAttribute, escapeText } from '../../../protocols/soap/xml-text.js'
import { indexService } from '../../../plugins/soap-codec/service-table.js'

const NS = 'urn:example:toy'

/** A toy service unrelated to the catalog: the codec must work from any table. */
const toy: SoapService = {
  namespace: NS,
  serviceName: 'Toy',
  portName: 'ToyPort',
  bindingName: 'ToyBinding',
  prefix: 'toy',
  types: [
    { kind: 'enum', name: 'Colour', values: ['Red', 'Green'] },
    {
      kind: 'complex',
      name: 'Item',
      fields: [
        { name: 'Label', type: 'xs:string' },
        { name: 'Count', type: 'xs:int' },
        { name: 'Tint', type: 'Colour' },
      ],
    },
    {
      kind: 'complex',
      name: 'ArrayOfItem',
      fields: [{ name: 'Item', type: 'Item', minOccurs: 0, maxOccurs: 'unbounded' }],
    },
  ],
  operations: [
    { name: 'Ping', input: [], output: [{ name: 'Ok', type: 'xs:boolean' }] },
    {
      name: 'List',
      input: [{ name: 'Filter', type: 'xs:string' }],
      output: [
        { name: 'Items', type: 'ArrayOfItem' },
        { name: 'Note', type: 'xs:string', minOccurs: 0 },
      ],
    },
  ],
}

const response = suite('soap-codec response writer')

response('wrapper tns:, unqualified children, xsi:type on complex elements only, schema order', () => {
  const xml = renderResponse(toy, 'List', {
    Note: 'n',
    Items: { Item: [{ Tint: 'Green', Count: 2, Label: 'a<b' }] },
  })
  assert.ok(xml.startsWith('<?xml version="1.0" encoding="utf-8"?>'))
  const env = tree(xml)
  assert.is(env.name, 'soap:Envelope')
  assert.is(env.attributes['xmlns:tns'], NS)
  assert.is(env.attributes['xmlns:xsi'], 'http://www.w3.org/2001/XMLSchema-instance')
  const wrapper = child(child(env, 'soap:Body'), 'tns:ListResponse')
  assert.equal(
    wrapper.children.map((c) => c.name),
    ['Items', 'Note'],
  )
  const items = child(wrapper, 'Items')
  assert.is(items.attributes['xsi:type'], 'tns:ArrayOfItem')
  const item = child(items, 'Item')
  assert.is(item.attributes['xsi:type'], 'tns:Item')
  assert.equal(
    item.children.map((c) => c.name),
    ['Label', 'Count', 'Tint'],
  )
  assert.is(child(item, 'Label').text, 'a<b')
  assert.equal(child(item, 'Count').attributes, {})
  assert.equal(child(item, 'Tint').attributes, {})
  assert.is(child(item, 'Tint').text, 'Green')
  assert.not.ok(xml.includes('soap:Header'))
})

response('booleans, empty strings and empty arrays', () => {
  assert.match(renderResponse(toy, 'Ping', { Ok: false }), '<tns:PingResponse><Ok>false</Ok></tns:PingResponse>')
  const xml = renderResponse(toy, 'List', { Items: { Item: [] }, Note: '' })
  assert.match(xml, '<Items xsi:type="tns:ArrayOfItem"></Items><Note></Note>')
})

response('an optional field that is absent is left out', () => {
  const xml = renderResponse(toy, 'List', { Items: { Item: [] } })
  assert.not.match(xml, '<Note')
})

response('a result that does not fit the table is refused (a bug of the service step)', () => {
  assert.throws(
    () => renderResponse(toy, 'Ping', {}),
    (e: unknown) => e instanceof ResultShapeError,
  )
  assert.throws(
    () => renderResponse(toy, 'Ping', { Ok: 'yes' }),
    (e: unknown) => e instanceof ResultShapeError,
  )
  assert.throws(
    () => renderResponse(toy, 'List', { Items: { Item: [{ Label: 'a', Count: 1, Tint: 'Blue' }] } }),
    (e: unknown) => e instanceof ResultShapeError,
  )
  assert.throws(
    () => renderResponse(toy, 'List', { Items: { Item: [{ Label: 'a', Count: 1.5, Tint: 'Red' }] } }),
    (e: unknown) => e instanceof ResultShapeError,
  )
  assert.throws(
    () => renderResponse(toy, 'Nope', {}),
    (e: unknown) => e instanceof ResultShapeError,
  )
})

response('escaping: markup and characters XML cannot carry', () => {
  assert.is(escapeText('a&b<c>d"e'), 'a&amp;b&lt;c&gt;d"e')
  assert.is(escapeText('x\u0001y\uFFFEz'), 'x\uFFFDy\uFFFDz')
  assert.is(escapeAttribute('a"b&\n'), 'a&quot;b&amp;&#10;')
  const xml = renderResponse(toy, 'List', { Items: { Item: [{ Label: '\u0000]]>&', Count: 0, Tint: 'Red' }] } })
  assert.is(
    child(child(child(child(child(tree(xml), 'soap:Body'), 'tns:ListResponse'), 'Items'), 'Item'), 'Label').text,
    '\uFFFD]]>&',
  )
})

response('an inconsistent table is refused', () => {
  const broken: SoapService = {
    ...toy,
    operations: [{ name: 'X', input: [], output: [{ name: 'Y', type: 'Missing' }] }],
  }
  assert.throws(() => indexService(broken), /unknown type 'Missing'/)
  assert.throws(() => indexService({ ...toy, portName: 'not a name' }), /not an XML name/)
})

response.run()

const wsdl = suite('soap-codec WSDL generator')

wsdl('the WSDL is well-formed XML and describes the table', () => {
  const doc = tree(renderWsdl(toy, 'http://127.0.0.1:1/toy'))
  assert.is(doc.name, 'definitions')
  assert.is(doc.attributes.targetNamespace, NS)
  assert.is(doc.attributes['xmlns:toy'], NS)
  const schema = child(child(doc, 'types'), 'xs:schema')
  assert.is(schema.attributes.targetNamespace, NS)
  assert.is(schema.attributes.elementFormDefault, undefined)
  assert.equal(
    schema.children.map((c) => `${c.name}:${c.attributes.name}`),
    [
      'xs:simpleType:Colour',
      'xs:complexType:Item',
      'xs:complexType:ArrayOfItem',
      'xs:element:Ping',
      'xs:element:PingResponse',
      'xs:element:List',
      'xs:element:ListResponse',
    ],
  )
  const array = schema.children[2]!
  const element = child(child(array, 'xs:sequence'), 'xs:element')
  assert.equal(element.attributes, { name: 'Item', type: 'toy:Item', minOccurs: '0', maxOccurs: 'unbounded' })
  const list = child(child(child(schema.children[5]!, 'xs:complexType'), 'xs:sequence'), 'xs:element')
  assert.equal(list.attributes, { name: 'Filter', type: 'xs:string' })
  assert.equal(
    doc.children.filter((c) => c.name === 'message').map((m) => m.attributes.name),
    ['PingIn', 'PingOut', 'ListIn', 'ListOut'],
  )
  const binding = child(doc, 'binding')
  assert.is(binding.attributes.name, 'ToyBinding')
  assert.is(binding.attributes.type, 'toy:ToyPort')
  for (const op of binding.children.filter((c) => c.name === 'operation')) {
    assert.equal(child(op, 'soap:operation').attributes, { soapAction: '', style: 'document' })
    assert.is(child(child(op, 'input'), 'soap:body').attributes.use, 'literal')
  }
  const port = child(child(doc, 'service'), 'port')
  assert.equal(port.attributes, { name: 'ToyPort', binding: 'toy:ToyBinding' })
  assert.is(child(port, 'soap:address').attributes.location, 'http://127.0.0.1:1/toy')
})

wsdl('the address is escaped', () => {
  const doc = tree(renderWsdl(toy, 'http://h/x?a=1&b="2"'))
  assert.is(child(child(child(doc, 'service'), 'port'), 'soap:address').attributes.location, 'http://h/x?a=1&b="2"')
})

wsdl.run()
