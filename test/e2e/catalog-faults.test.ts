/**
 * Raw-XML requests over a real socket, one per fault of the issue: each answer is a SOAP 1.1
 * fault with HTTP 500 and text/xml; charset=utf-8. The external-entity test points its DOCTYPE
 * at a loopback HTTP server that must receive no request.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import sax from 'sax'
import type { TestGateway } from '../support/gateway.js'
import { CATALOG_NS, postXml, SOAP11, startCatalogGateway } from './catalog-gateway.js'

interface Fault {
  faultcode: string
  faultstring: string
  detailCode: string | undefined
}

/** Parses a fault response strictly (it must be well-formed XML) and returns its parts. */
function parseFault(xml: string): Fault {
  const parser = sax.parser(true, { xmlns: true })
  const path: string[] = []
  const texts: Record<string, string> = {}
  parser.onerror = (e) => {
    throw e
  }
  parser.onopentag = (tag) => {
    const t = tag as sax.QualifiedTag
    path.push(t.uri === SOAP11 ? `soap:${t.local}` : t.uri === '' ? t.local : `{${t.uri}}${t.local}`)
  }
  parser.onclosetag = () => void path.pop()
  parser.ontext = (t) => {
    const key = path.join('/')
    texts[key] = (texts[key] ?? '') + t
  }
  parser.write(xml).close()
  const base = 'soap:Envelope/soap:Body/soap:Fault'
  const detailKey = Object.keys(texts).find((k) => k.startsWith(`${base}/detail/`) && k.endsWith('}code'))
  return {
    faultcode: texts[`${base}/faultcode`] ?? '',
    faultstring: texts[`${base}/faultstring`] ?? '',
    detailCode: detailKey === undefined ? undefined : texts[detailKey],
  }
}

function envelope(body: string, header = ''): string {
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP11}" xmlns:gis="${CATALOG_NS}">${header}<soap:Body>${body}</soap:Body></soap:Envelope>`
}

let gw: TestGateway
/** A loopback HTTP server standing for an attacker's DTD/entity host; counts what reaches it. */
let bait: http.Server
let baitUrl = ''
let baitHits = 0

async function expectFault(
  body: string | Uint8Array,
  faultcode: string,
  detailCode: string | undefined,
  headers: Record<string, string> = {},
): Promise<Fault> {
  const res = await postXml(gw, body, headers)
  assert.is(res.status, 500)
  assert.is(res.contentType, 'text/xml; charset=utf-8')
  const fault = parseFault(res.text)
  assert.is(fault.faultcode, faultcode)
  assert.is(fault.detailCode, detailCode)
  assert.ok(fault.faultstring.length > 0)
  return fault
}

const test = suite('e2e catalog: raw-XML faults')

test.before(async () => {
  gw = await startCatalogGateway()
  bait = http.createServer((_req, res) => {
    baitHits++
    res.writeHead(200, { 'content-type': 'application/xml-dtd' })
    res.end('<!ENTITY secret "leaked">')
  })
  await new Promise<void>((resolve) => bait.listen(0, '127.0.0.1', resolve))
  baitUrl = `http://127.0.0.1:${(bait.address() as AddressInfo).port}`
})
test.after(async () => {
  await gw.close()
  await new Promise<void>((resolve) => bait.close(() => resolve()))
})

test('a well-formed call still works (control)', async () => {
  const res = await postXml(gw, envelope('<gis:RequiresTokens/>'))
  assert.is(res.status, 200)
  assert.is(res.contentType, 'text/xml; charset=utf-8')
  assert.match(res.text, '<Result>false</Result>')
})

test('arguments bind by local name: qualified, unqualified and default-namespace forms agree', async () => {
  const forms = [
    envelope('<gis:GetServiceDescriptionsEx><FolderName>Specialty</FolderName></gis:GetServiceDescriptionsEx>'),
    envelope('<gis:GetServiceDescriptionsEx><gis:FolderName>Specialty</gis:FolderName></gis:GetServiceDescriptionsEx>'),
    envelope(
      `<GetServiceDescriptionsEx xmlns="${CATALOG_NS}"><FolderName>Specialty</FolderName></GetServiceDescriptionsEx>`,
    ),
  ]
  const answers = await Promise.all(forms.map((f) => postXml(gw, f)))
  for (const a of answers) {
    assert.is(a.status, 200)
    assert.match(a.text, '<Name>Specialty/StatesCitiesRivers</Name><Type>WMSServer</Type>')
  }
  assert.ok(answers.every((a) => a.text === answers[0]!.text))
})

test('malformed XML → soap:Client', async () => {
  await expectFault(envelope('<gis:GetFolders>').replace('</soap:Body>', '</soap:Bdy>'), 'soap:Client', 'MalformedXml')
})

test('billion laughs (DOCTYPE with nested entities) → soap:Client, nothing expanded', async () => {
  const entities = ['<!ENTITY lol "lol">']
  for (let i = 1; i <= 9; i++) entities.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`)
  const body = `<?xml version="1.0"?><!DOCTYPE lolz [${entities.join('')}]>${envelope('<gis:GetServiceDescriptionsEx><FolderName>&lol9;</FolderName></gis:GetServiceDescriptionsEx>').replace(/^<\?xml[^>]*>/, '')}`
  const res = await postXml(gw, body)
  assert.is(res.status, 500)
  assert.ok(res.text.length < 2000, 'the answer is a short fault, not an expansion')
  assert.not.match(res.text, 'lollol')
  const fault = parseFault(res.text)
  assert.is(fault.faultcode, 'soap:Client')
  assert.is(fault.detailCode, 'DoctypeForbidden')
})

test('external entity (DOCTYPE pointing at a loopback server) → soap:Client, nothing fetched', async () => {
  const before = baitHits
  const body = `<?xml version="1.0"?><!DOCTYPE soap:Envelope [<!ENTITY % ext SYSTEM "${baitUrl}/evil.dtd"> %ext; <!ENTITY xxe SYSTEM "${baitUrl}/secret">]>${envelope('<gis:GetServiceDescriptionsEx><FolderName>&xxe;</FolderName></gis:GetServiceDescriptionsEx>').replace(/^<\?xml[^>]*>/, '')}`
  const fault = await expectFault(body, 'soap:Client', 'DoctypeForbidden')
  assert.not.match(fault.faultstring, 'leaked')
  // And an entity reference without any DOCTYPE is not resolved either.
  await expectFault(
    envelope(`<gis:GetServiceDescriptionsEx><FolderName>&xxe;</FolderName></gis:GetServiceDescriptionsEx>`),
    'soap:Client',
    'MalformedXml',
  )
  // The bait server is reachable (so a zero count means something): check it last.
  assert.is(baitHits, before, 'the gateway fetched the external entity')
  await fetch(`${baitUrl}/probe`).then((r) => r.text())
  assert.is(baitHits, before + 1)
})

test('SOAP 1.2 envelope → soap:VersionMismatch (no detail)', async () => {
  await expectFault(
    '<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Body><GetFolders xmlns="http://www.example.org/schemas/GIS/10.7"/></env:Body></env:Envelope>',
    'soap:VersionMismatch',
    undefined,
    { 'content-type': 'application/soap+xml; charset=utf-8' },
  )
})

test('unknown operation → soap:Client', async () => {
  const fault = await expectFault(envelope('<gis:DeleteAllServices/>'), 'soap:Client', 'UnknownOperation')
  assert.match(fault.faultstring, 'DeleteAllServices')
})

test('an operation in another namespace → soap:Client', async () => {
  await expectFault(envelope('<x:GetFolders xmlns:x="urn:not-the-catalog"/>'), 'soap:Client', 'UnknownOperation')
})

test('empty Body → soap:Client', async () => {
  await expectFault(envelope(''), 'soap:Client', 'BodyChildCount')
})

test('two Body children → soap:Client', async () => {
  await expectFault(envelope('<gis:GetFolders/><gis:GetMessageVersion/>'), 'soap:Client', 'BodyChildCount')
})

test('no Body → soap:Client', async () => {
  await expectFault(`<soap:Envelope xmlns:soap="${SOAP11}"><soap:Header/></soap:Envelope>`, 'soap:Client', 'NoBody')
})

test('mustUnderstand header nothing handles → soap:MustUnderstand (no detail)', async () => {
  const fault = await expectFault(
    envelope(
      '<gis:GetFolders/>',
      '<soap:Header><w:Security xmlns:w="urn:example:security" soap:mustUnderstand="1"><w:Token>x</w:Token></w:Security></soap:Header>',
    ),
    'soap:MustUnderstand',
    undefined,
  )
  assert.match(fault.faultstring, '{urn:example:security}Security')
})

test('bad arguments → soap:Client', async () => {
  await expectFault(envelope('<gis:GetServiceDescriptionsEx/>'), 'soap:Client', 'InvalidArgument')
  await expectFault(
    envelope('<gis:GetFolders><FolderName>x</FolderName></gis:GetFolders>'),
    'soap:Client',
    'InvalidArgument',
  )
})

test('oversize body (over max_bytes: 1 MiB) → soap:Client', async () => {
  const big = envelope(
    `<gis:GetServiceDescriptionsEx><FolderName>${'a'.repeat(1024 * 1024)}</FolderName></gis:GetServiceDescriptionsEx>`,
  )
  await expectFault(big, 'soap:Client', 'TooLarge')
  // Streamed without a Content-Length, the limit holds too.
  const chunks = [Buffer.from(big.slice(0, 1000)), Buffer.from(big.slice(1000))]
  const res = await fetch(`${gw.url}/catalog`, {
    method: 'POST',
    headers: { 'content-type': 'text/xml; charset=utf-8' },
    body: new ReadableStream({
      pull(controller) {
        const next = chunks.shift()
        if (next === undefined) controller.close()
        else controller.enqueue(next)
      },
    }),
    duplex: 'half',
  } as RequestInit)
  assert.is(res.status, 500)
  assert.is(parseFault(await res.text()).detailCode, 'TooLarge')
})

test('too deep → soap:Client', async () => {
  await expectFault(
    envelope(
      `<gis:GetServiceDescriptionsEx><FolderName>${'<a>'.repeat(40)}${'</a>'.repeat(40)}</FolderName></gis:GetServiceDescriptionsEx>`,
    ),
    'soap:Client',
    'TooDeep',
  )
})

test('a SOAPAction of any value is accepted: dispatch is on the Body element', async () => {
  const res = await postXml(gw, envelope('<gis:GetMessageFormats/>'), { soapaction: '"urn:something-else"' })
  assert.is(res.status, 200)
  assert.match(res.text, '<MessageFormats>')
  const none = await fetch(`${gw.url}/catalog`, {
    method: 'POST',
    headers: { 'content-type': 'text/xml' },
    body: envelope('<gis:GetMessageFormats/>'),
  })
  assert.is(none.status, 200)
})

test('GET /catalog without ?wsdl is not a SOAP call: 404', async () => {
  const res = await fetch(`${gw.url}/catalog`)
  assert.is(res.status, 404)
  await res.text()
})

test.run()
