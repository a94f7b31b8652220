import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { GatewayError, toGatewayError } from '../../../kernel/contract/errors.js'
import { describeFault, renderFault, SoapFault, soapErrorStyle } from '../../../protocols/soap/fault.js'
import { tree, child } from '../../support/xml-tree.js'

const faults = suite('protocols/soap: faults')

faults('GatewayError 4xx → Client with its message and detail code', () => {
  const f = describeFault(new GatewayError(400, "Unknown operation 'Foo'.", { type: 'UnknownOperation' }))
  assert.equal(f, { faultCode: 'Client', faultString: "Unknown operation 'Foo'.", detailCode: 'UnknownOperation' })
  assert.is(describeFault(new GatewayError(413, 'too large')).detailCode, 'TooLarge')
  assert.is(describeFault(new GatewayError(401, 'no')).detailCode, 'Unauthorized')
  assert.is(describeFault(new GatewayError(400, 'no', { type: 'gateway_error' })).detailCode, 'InvalidRequest')
})

faults('anything else → Server, leaking nothing', () => {
  const f = describeFault(toGatewayError(new Error('ECONNREFUSED 10.0.0.5:5432 password=hunter2')))
  assert.equal(f, { faultCode: 'Server', faultString: 'Internal server error.', detailCode: 'Internal' })
  const g = describeFault(new GatewayError(500, 'internal error', { cause: new Error('secret') }))
  assert.is(g.faultString, 'Internal server error.')
  const h = describeFault(new GatewayError(502, 'The service catalog is unavailable.', { type: 'Unavailable' }))
  assert.equal(h, {
    faultCode: 'Server',
    faultString: 'The service catalog is unavailable.',
    detailCode: 'Unavailable',
  })
})

faults('fault document: unqualified children, detail only when the Body failed', () => {
  const client = tree(renderFault(describeFault(new SoapFault('Client', 'bad <thing>', 'MalformedXml')), 'urn:f'))
  const fault = child(child(client, 'soap:Body'), 'soap:Fault')
  assert.equal(
    fault.children.map((c) => c.name),
    ['faultcode', 'faultstring', 'detail'],
  )
  assert.is(child(fault, 'faultcode').text, 'soap:Client')
  assert.is(child(fault, 'faultstring').text, 'bad <thing>')
  const entry = child(child(fault, 'detail'), 'f:error')
  assert.is(entry.attributes['xmlns:f'], 'urn:f')
  assert.is(child(entry, 'f:code').text, 'MalformedXml')

  const vm = tree(renderFault(describeFault(new SoapFault('VersionMismatch', 'v')), 'urn:f'))
  const vmFault = child(child(vm, 'soap:Body'), 'soap:Fault')
  assert.equal(
    vmFault.children.map((c) => c.name),
    ['faultcode', 'faultstring'],
  )
  assert.is(child(vmFault, 'faultcode').text, 'soap:VersionMismatch')
})

faults('the soap error style: HTTP 500 for every fault, but 404 and 405 keep their status', () => {
  const style = soapErrorStyle('urn:f')
  const bad = style(new GatewayError(401, 'Invalid token.', { type: 'Unauthorized' }))
  assert.is(bad.status, 500)
  assert.is(bad.contentType, 'text/xml; charset=utf-8')
  assert.match(bad.body, '<faultcode>soap:Client</faultcode><faultstring>Invalid token.</faultstring>')
  assert.match(bad.body, '<f:code>Unauthorized</f:code>')
  assert.is(style(new GatewayError(404, 'no SOAP endpoint here')).status, 404)
  assert.is(style(new GatewayError(503, 'busy')).status, 500)
})

faults.run()
