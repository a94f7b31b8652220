import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import soapCodec from '../../../plugins/soap-codec/index.js'
import { GatewayError } from '../../../kernel/contract/errors.js'
import type { Exchange } from '../../../kernel/contract/exchange.js'
import type { TextReply } from '../../../kernel/contract/reply.js'
import type { SoapService } from '../../../protocols/soap/contract.js'
import { runPlugin, setupPlugin, type Run, type Scenario } from '../../../bin/testing/harness.js'

const SOAP = 'http://schemas.xmlsoap.org/soap/envelope/'
const NS = 'urn:example:toy'

const toy: SoapService = {
  namespace: NS,
  serviceName: 'Toy',
  portName: 'ToyPort',
  bindingName: 'ToyBinding',
  types: [],
  operations: [
    { name: 'Echo', input: [{ name: 'Text', type: 'xs:string' }], output: [{ name: 'Text', type: 'xs:string' }] },
  ],
}

function envelope(body: string, header = ''): string {
  return `<soap:Envelope xmlns:soap="${SOAP}" xmlns:t="${NS}">${header}<soap:Body>${body}</soap:Body></soap:Envelope>`
}

/** A fake service step: echoes `Text`. */
function echo(ex: Exchange): void {
  const soap = ex.state.soap
  if (soap?.kind !== 'call') throw new Error('expected a call')
  ex.state.soapResult = {
    kind: 'response',
    service: toy,
    operation: 'Echo',
    values: { Text: soap.call.args[0]?.text ?? '' },
  }
}

/** The codec in a pipeline declared `errors: soap`, as catalog.yaml is. */
const runSoap = (options: unknown, scenario: Scenario) => runPlugin(soapCodec, options, { errors: 'soap', ...scenario })

/** What the client receives: the codec's reply, or the error as the kernel's boundary renders it. */
function wire(run: Run): { status: number; contentType: string; text: string } {
  if (run.rendered)
    return { status: run.rendered.status, contentType: run.rendered.contentType, text: run.rendered.body }
  const r = run.reply as TextReply
  assert.is(r?.kind, 'text')
  return { status: r.status, contentType: r.contentType, text: r.text }
}

function faultCode(xml: string): string | undefined {
  return /<faultcode>([^<]*)<\/faultcode>/.exec(xml)?.[1]
}

const test = suite('plugin soap-codec (isolation)')

test('a call: parsed into ex.state.soap, the result rendered as text/xml 200', async () => {
  let seen: Exchange['state']['soap']
  const run = await runSoap(
    {},
    {
      body: envelope('<t:Echo><Text>hi &amp; bye</Text></t:Echo>'),
      headers: { soapaction: '""' },
      next: (ex) => {
        seen = ex.state.soap
        echo(ex)
      },
    },
  )
  assert.is(run.error, undefined)
  assert.ok(run.nextCalled)
  assert.is(seen?.kind, 'call')
  if (seen?.kind === 'call') {
    assert.is(seen.call.operation, 'Echo')
    assert.is(seen.call.soapAction, '')
  }
  const r = wire(run)
  assert.is(r.status, 200)
  assert.is(r.contentType, 'text/xml; charset=utf-8')
  assert.match(r.text, `<tns:EchoResponse><Text>hi &amp; bye</Text></tns:EchoResponse>`)
})

test('the body may be bytes too (in-process calls)', async () => {
  const run = await runSoap({}, { body: Buffer.from(envelope('<t:Echo><Text>b</Text></t:Echo>')), next: echo })
  assert.is(wire(run).status, 200)
})

test('a GatewayError 4xx from the service step → soap:Client fault, HTTP 500', async () => {
  const run = await runSoap(
    {},
    {
      body: envelope('<t:Nope/>'),
      next: () => {
        throw new GatewayError(400, "Unknown operation 'Nope'.", { type: 'UnknownOperation' })
      },
    },
  )
  const r = wire(run)
  assert.is(r.status, 500)
  assert.is(r.contentType, 'text/xml; charset=utf-8')
  assert.is(faultCode(r.text), 'soap:Client')
  assert.match(r.text, "<faultstring>Unknown operation 'Nope'.</faultstring>")
  assert.match(r.text, '<f:code>UnknownOperation</f:code>')
})

test('any other error → soap:Server that leaks nothing', async () => {
  const run = await runSoap(
    {},
    {
      body: envelope('<t:Echo><Text>x</Text></t:Echo>'),
      next: () => {
        throw new Error('db password=hunter2 at 10.1.2.3')
      },
    },
  )
  const r = wire(run)
  assert.is(r.status, 500)
  assert.is(faultCode(r.text), 'soap:Server')
  assert.not.match(r.text, 'hunter2')
  assert.not.match(r.text, '10.1.2.3')
  assert.match(r.text, '<faultstring>Internal server error.</faultstring>')
})

test('a result that does not fit its table → soap:Server', async () => {
  const run = await runSoap(
    {},
    {
      body: envelope('<t:Echo><Text>x</Text></t:Echo>'),
      next: (ex) => {
        ex.state.soapResult = { kind: 'response', service: toy, operation: 'Echo', values: { Text: 42 } }
      },
    },
  )
  assert.is(faultCode(wire(run).text), 'soap:Server')
})

test('no step set a result → soap:Server', async () => {
  const run = await runSoap({}, { body: envelope('<t:Echo/>'), next: () => undefined })
  assert.is(faultCode(wire(run).text), 'soap:Server')
})

test('a later step that answered 401 on its own → soap:Client with its message', async () => {
  const run = await runSoap(
    {},
    {
      body: envelope('<t:Echo/>'),
      next: (ex) => {
        ex.reply = {
          kind: 'json',
          status: 401,
          body: { error: { message: 'missing bearer token', type: 'gateway_error' } },
        }
      },
    },
  )
  const r = wire(run)
  assert.is(faultCode(r.text), 'soap:Client')
  assert.match(r.text, '<faultstring>missing bearer token</faultstring>')
})

test('malformed XML → soap:Client; the next step never runs', async () => {
  const run = await runSoap(
    {},
    { body: `<soap:Envelope xmlns:soap="${SOAP}"><soap:Body><t:Echo></soap:Body>`, next: echo },
  )
  assert.is(run.nextCalled, false)
  const r = wire(run)
  assert.is(r.status, 500)
  assert.is(faultCode(r.text), 'soap:Client')
})

test('SOAP 1.2 → soap:VersionMismatch', async () => {
  const run = await runSoap(
    {},
    {
      body: '<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><t:Echo xmlns:t="urn:x"/></e:Body></e:Envelope>',
      next: echo,
    },
  )
  assert.is(run.nextCalled, false)
  assert.is(faultCode(wire(run).text), 'soap:VersionMismatch')
})

test('a mustUnderstand header nothing handles → soap:MustUnderstand; one listed in understood_headers passes', async () => {
  const header = '<soap:Header><s:Security xmlns:s="urn:sec" soap:mustUnderstand="1"/></soap:Header>'
  const refused = await runSoap({}, { body: envelope('<t:Echo><Text>x</Text></t:Echo>', header), next: echo })
  assert.is(refused.nextCalled, false)
  const r = wire(refused)
  assert.is(faultCode(r.text), 'soap:MustUnderstand')
  assert.match(r.text, '{urn:sec}Security')
  assert.not.match(r.text, '<detail>')

  const accepted = await runSoap(
    { understood_headers: ['{urn:sec}Security'] },
    { body: envelope('<t:Echo><Text>x</Text></t:Echo>', header), next: echo },
  )
  assert.is(wire(accepted).status, 200)

  const other = await runSoap(
    {},
    {
      body: envelope(
        '<t:Echo><Text>x</Text></t:Echo>',
        '<soap:Header><s:Hint xmlns:s="urn:sec" soap:mustUnderstand="0"/><s:Other xmlns:s="urn:sec" soap:mustUnderstand="1" soap:actor="urn:someone-else"/></soap:Header>',
      ),
      next: echo,
    },
  )
  assert.is(wire(other).status, 200)
})

test('max_bytes: a larger body → soap:Client TooLarge, not parsed', async () => {
  const run = await runSoap(
    { max_bytes: 1024 },
    { body: envelope(`<t:Echo><Text>${'x'.repeat(2000)}</Text></t:Echo>`), next: echo },
  )
  assert.is(run.nextCalled, false)
  const r = wire(run)
  assert.is(faultCode(r.text), 'soap:Client')
  assert.match(r.text, '<f:code>TooLarge</f:code>')
})

test("max_depth applies; the fault namespace is the pipeline's errors setting", async () => {
  const run = await runSoap(
    { max_depth: 4 },
    {
      errors: { style: 'soap', fault_namespace: 'urn:mine' },
      body: envelope('<t:Echo><Text><x/></Text></t:Echo>'),
      next: echo,
    },
  )
  const r = wire(run)
  assert.match(r.text, '<f:code>TooDeep</f:code>')
  assert.match(r.text, 'xmlns:f="urn:mine"')
})

test('options are validated like in production', async () => {
  for (const bad of [{ max_depth: 1 }, { max_bytes: 'big' }, { colour: 'red' }, { understood_headers: [''] }]) {
    try {
      await setupPlugin(soapCodec, bad)
    } catch (err) {
      assert.match((err as Error).message, /bad options/)
      continue
    }
    assert.unreachable(`accepted ${JSON.stringify(bad)}`)
  }
})

test.run()
