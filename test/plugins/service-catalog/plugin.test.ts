import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import serviceCatalog from '../../../plugins/service-catalog/index.js'
import soapCodec from '../../../plugins/soap-codec/index.js'
import { defaultConfigDir } from '../../../kernel/contract/paths.js'
import { formatHash, hashSecret } from '../../../protocols/credentials/secrets.js'
import type { Exchange, ExchangeState } from '../../../kernel/contract/exchange.js'
import type { TextReply } from '../../../kernel/contract/reply.js'
import type { SoapCall, SoapRecord, SoapResult } from '../../../protocols/soap/contract.js'
import { makeKernel, runPlugin, setupPlugin, TEST_KEY } from '../../../bin/testing/harness.js'
import { startFakeRestCatalog, type FakeRestServer } from './fake-rest-catalog.js'

const NS = 'http://www.example.org/schemas/GIS/10.7'
const SOAP = 'http://schemas.xmlsoap.org/soap/envelope/'

/** A copy of the default config folder with catalog.yaml replaced. */
function configWith(catalogYaml: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-catalog-'))
  for (const f of fs.readdirSync(defaultConfigDir))
    if (fs.statSync(path.join(defaultConfigDir, f)).isFile())
      fs.copyFileSync(path.join(defaultConfigDir, f), path.join(dir, f))
  fs.writeFileSync(path.join(dir, 'catalog.yaml'), catalogYaml)
  return dir
}

function callState(operation: string, args: Record<string, string> = {}, namespace = NS): ExchangeState {
  const call: SoapCall = {
    operation,
    namespace,
    args: Object.entries(args).map(([local, text]) => ({ local, namespace: '', text, children: [], nil: false })),
    headers: [],
    soapAction: '',
  }
  return { soap: { kind: 'call', call } }
}

function values(result: SoapResult | undefined): SoapRecord {
  assert.is(result?.kind, 'response')
  return result?.kind === 'response' ? result.values : {}
}

const kernel = makeKernel()

const test = suite('plugin service-catalog (isolation, embedded default catalog.yaml)')

test('requires the soap slot and provides soapResult', () => {
  assert.equal(serviceCatalog.requires, ['soap'])
  assert.equal(serviceCatalog.provides, ['soapResult'])
})

test('GetMessageVersion / GetMessageFormats / GetTokenServiceURL / RequiresTokens answer from config', async () => {
  const v = async (op: string) =>
    values((await runPlugin(serviceCatalog, {}, { kernel, state: callState(op) })).ex.state.soapResult)
  assert.equal(await v('GetMessageVersion'), { MessageVersion: 'gisPlatformVersion107' })
  assert.equal(await v('GetMessageFormats'), { MessageFormats: 'gisServiceCatalogMessageFormatSoap' })
  assert.equal(await v('GetTokenServiceURL'), { TokenServiceURL: 'https://gis.example.org/gis/tokens/generateToken' })
  assert.equal(await v('RequiresTokens'), { Result: false })
})

test('GetFolders and GetServiceDescriptionsEx from the static lists; the result carries the table', async () => {
  const folders = await runPlugin(serviceCatalog, {}, { kernel, state: callState('GetFolders') })
  assert.is(folders.error, undefined)
  assert.is(folders.nextCalled, true) // it sets no reply: steps after it still run
  assert.equal(values(folders.ex.state.soapResult), {
    FolderNames: { String: ['Basemaps', 'Demographics', 'Locators', 'Specialty', 'Utilities'] },
  })
  const result = folders.ex.state.soapResult
  if (result?.kind === 'response') {
    assert.is(result.operation, 'GetFolders')
    assert.is(result.service.namespace, NS)
    assert.is(result.service.portName, 'ServiceCatalogPort')
  }
  const ex = await runPlugin(
    serviceCatalog,
    {},
    { kernel, state: callState('GetServiceDescriptionsEx', { FolderName: 'Specialty' }) },
  )
  const list = values(ex.ex.state.soapResult) as { ServiceDescriptions: { ServiceDescription: SoapRecord[] } }
  assert.equal(list.ServiceDescriptions.ServiceDescription, [
    {
      Name: 'Specialty/StatesCitiesRivers',
      Type: 'MapServer',
      Url: 'https://gis.example.org/gis/services/Specialty/StatesCitiesRivers/MapServer',
      ParentType: '',
      Capabilities: 'Map,Query,Data',
      Description: 'States, cities and rivers.',
    },
    {
      Name: 'Specialty/StatesCitiesRivers',
      Type: 'WMSServer',
      Url: 'https://gis.example.org/gis/services/Specialty/StatesCitiesRivers/MapServer/WMSServer',
      ParentType: 'MapServer',
      Capabilities: 'WMS',
      Description: 'The StatesCitiesRivers map as an OGC WMS.',
    },
  ])
})

test('an unknown operation, an unknown folder, a bad argument: GatewayError 400 with the fault detail code', async () => {
  const unknown = await runPlugin(serviceCatalog, {}, { kernel, state: callState('DropTables') })
  assert.is(unknown.error?.status, 400)
  assert.is(unknown.error?.type, 'UnknownOperation')
  const folder = await runPlugin(
    serviceCatalog,
    {},
    { kernel, state: callState('GetServiceDescriptionsEx', { FolderName: 'Nowhere' }) },
  )
  assert.is(folder.error?.type, 'UnknownFolder')
  const arg = await runPlugin(serviceCatalog, {}, { kernel, state: callState('GetFolders', { Extra: 'x' }) })
  assert.is(arg.error?.type, 'InvalidArgument')
  assert.is(arg.ex.state.soapResult, undefined)
  assert.is(arg.nextCalled, false)
})

test('describe (GET ?wsdl): the table alone; no address when public_url is empty', async () => {
  const run = await runPlugin(serviceCatalog, {}, { kernel, state: { soap: { kind: 'describe' } } })
  const result = run.ex.state.soapResult
  assert.is(result?.kind, 'description')
  assert.is(result?.service.address, undefined)
  assert.equal(
    result?.service.operations.map((o) => o.name),
    [
      'GetMessageVersion',
      'GetMessageFormats',
      'GetTokenServiceURL',
      'GetFolders',
      'GetServiceDescriptions',
      'RequiresTokens',
      'GetServiceDescriptionsEx',
    ],
  )
})

test('public_url becomes the address; namespace, version and tokens are configuration', async () => {
  const k = makeKernel({
    configDir: configWith(`namespace: urn:custom:ns
public_url: https://gis.example.org/catalog
message_version: gisPlatformVersion93
tokens: { required: true, service_url: https://t.example.org/token }
static: { folders: [], services: [] }
`),
  })
  const d = await runPlugin(serviceCatalog, {}, { kernel: k, state: { soap: { kind: 'describe' } } })
  assert.is(d.ex.state.soapResult?.service.address, 'https://gis.example.org/catalog')
  assert.is(d.ex.state.soapResult?.service.namespace, 'urn:custom:ns')
  const v = await runPlugin(
    serviceCatalog,
    {},
    { kernel: k, state: callState('GetMessageVersion', {}, 'urn:custom:ns') },
  )
  assert.equal(values(v.ex.state.soapResult), { MessageVersion: 'gisPlatformVersion93' })
  const t = await runPlugin(serviceCatalog, {}, { kernel: k, state: callState('RequiresTokens', {}, 'urn:custom:ns') })
  assert.equal(values(t.ex.state.soapResult), { Result: true })
  // The default namespace is no longer the catalog's.
  const wrongNs = await runPlugin(serviceCatalog, {}, { kernel: k, state: callState('GetFolders', {}, NS) })
  assert.is(wrongNs.error?.type, 'UnknownOperation')
})

test('access.require_token: no token → 401 Unauthorized; a gateway key as ?token= or Bearer, or an earlier auth step, passes', async () => {
  const k = makeKernel({ configDir: configWith(`namespace: ${NS}\naccess: { require_token: true }\n`) })
  const none = await runPlugin(serviceCatalog, {}, { kernel: k, state: callState('GetFolders') })
  assert.is(none.error?.status, 401)
  assert.is(none.error?.type, 'Unauthorized')
  const wrong = await runPlugin(
    serviceCatalog,
    {},
    { kernel: k, state: callState('GetFolders'), query: 'token=sk-wrong' },
  )
  assert.is(wrong.error?.message, 'Invalid token.')
  const describe = await runPlugin(serviceCatalog, {}, { kernel: k, state: { soap: { kind: 'describe' } } })
  assert.is(describe.error?.status, 401)
  const query = await runPlugin(
    serviceCatalog,
    {},
    { kernel: k, state: callState('GetFolders'), query: `token=${encodeURIComponent(TEST_KEY)}` },
  )
  assert.is(query.error, undefined)
  assert.equal(values(query.ex.state.soapResult), { FolderNames: { String: [] } })
  const bearer = await runPlugin(
    serviceCatalog,
    {},
    { kernel: k, state: callState('GetFolders'), headers: { authorization: `Bearer ${TEST_KEY}` } },
  )
  assert.is(bearer.error, undefined)
  const principal = await runPlugin(
    serviceCatalog,
    {},
    { kernel: k, state: callState('GetFolders'), principal: { keyId: 'demo', group: 'demo', legacy: false } },
  )
  assert.is(principal.error, undefined)
})

test('access.require_token: a gateway key past its expires_at is an invalid token', async () => {
  const dir = configWith(`namespace: ${NS}\naccess: { require_token: true }\n`)
  fs.writeFileSync(
    path.join(dir, 'keys.yaml'),
    `groups: { demo: {} }\nkeys:\n  - { id: demo, group: demo, demo: true }\n  - { id: soon, group: demo, expires_at: "2030-01-01T00:00:00Z", hash: "${formatHash(hashSecret('sk-soon'))}" }\n`,
  )
  let now = Date.parse('2029-12-31T23:59:59Z')
  const k = makeKernel({ configDir: dir, now: () => now })
  const ask = () => runPlugin(serviceCatalog, {}, { kernel: k, state: callState('GetFolders'), query: 'token=sk-soon' })
  assert.is((await ask()).error, undefined)
  now = Date.parse('2030-01-01T00:00:00Z')
  const expired = await ask()
  assert.equal(
    [expired.error?.status, expired.error?.type, expired.error?.message],
    [401, 'Unauthorized', 'Invalid token.'],
  )
})

test('a bad catalog file stops setup with the reason', async () => {
  const k = makeKernel({ configDir: configWith(`namespace: ${NS}\nsource: rest\n`) })
  try {
    await setupPlugin(serviceCatalog, {}, k)
  } catch (err) {
    assert.match((err as Error).message, /rest.url is empty/)
    return
  }
  assert.unreachable('setup accepted a rest source without url')
})

test('options are validated like in production', async () => {
  for (const bad of [{ file: '../secrets.yaml' }, { file: 'x.json' }, { other: 1 }]) {
    try {
      await setupPlugin(serviceCatalog, bad, kernel)
    } catch (err) {
      assert.match((err as Error).message, /bad options/)
      continue
    }
    assert.unreachable(`accepted ${JSON.stringify(bad)}`)
  }
})

test.run()

// ---------------------------------------------------------------------------------------------

const rest = suite('plugin service-catalog with source: rest (fake REST catalog on 127.0.0.1)')
let fake: FakeRestServer

rest.before(async () => {
  fake = await startFakeRestCatalog({
    rootServices: [{ name: 'World', type: 'MapServer' }],
    folders: { Transport: [{ name: 'Transport/Roads', type: 'FeatureServer' }] },
  })
})
rest.after(async () => fake.close())

rest('folders and services come from the REST catalog, cached between requests', async () => {
  const clock = 5_000_000
  const k = makeKernel({
    configDir: configWith(`namespace: ${NS}\nsource: rest\nrest: { url: "${fake.url}", ttl_seconds: 60 }\n`),
    now: () => clock,
  })
  const phases = await setupPlugin(serviceCatalog, {}, k)
  const call = async (op: string, args: Record<string, string> = {}) => {
    const run = await runPlugin(serviceCatalog, {}, { kernel: k, state: callState(op, args) })
    return { run, values: run.ex.state.soapResult?.kind === 'response' ? run.ex.state.soapResult.values : undefined }
  }
  fake.requests.length = 0
  assert.equal((await call('GetFolders')).values, { FolderNames: { String: ['Transport'] } })
  const roads = (await call('GetServiceDescriptionsEx', { FolderName: 'Transport' })).values as {
    ServiceDescriptions: { ServiceDescription: SoapRecord[] }
  }
  assert.equal(roads.ServiceDescriptions.ServiceDescription, [
    {
      Name: 'Transport/Roads',
      Type: 'FeatureServer',
      Url: `${fake.url.replace('/rest/services', '/services')}/Transport/Roads/FeatureServer`,
      ParentType: '',
      Capabilities: '',
      Description: '',
    },
  ])
  const unknown = await call('GetServiceDescriptionsEx', { FolderName: 'Nope' })
  assert.is(unknown.run.error?.type, 'UnknownFolder')
  await phases.close?.()
  assert.ok(fake.requests.length >= 2)
})

rest('one plugin instance fetches once within the TTL', async () => {
  let clock = 7_000_000
  const k = makeKernel({
    configDir: configWith(`namespace: ${NS}\nsource: rest\nrest: { url: "${fake.url}", ttl_seconds: 60 }\n`),
    now: () => clock,
  })
  const phases = await setupPlugin(serviceCatalog, {}, k)
  fake.requests.length = 0
  const run = async (op: string) => {
    const ex = {
      state: callState(op),
      signal: new AbortController().signal,
      principal: undefined,
    } as unknown as Exchange
    await phases.request!(ex, async () => undefined)
    return ex.state.soapResult
  }
  await run('GetFolders')
  await run('GetServiceDescriptions')
  assert.is(fake.requests.length, 2) // root + one folder, once
  clock += 61_000
  await run('GetFolders')
  assert.is(fake.requests.length, 4)
  await phases.close?.()
})

rest.run()

// ---------------------------------------------------------------------------------------------

const chain = suite('soap-codec + service-catalog chained (no server)')

/** What the client receives, in a pipeline declared `errors: soap` as catalog.yaml is. */
async function roundTrip(body: string): Promise<{ status: number; text: string }> {
  const catalog = await setupPlugin(serviceCatalog, {}, kernel)
  const run = await runPlugin(
    soapCodec,
    {},
    { kernel, body, errors: 'soap', next: (ex) => catalog.request!(ex, async () => undefined) },
  )
  if (run.rendered) return { status: run.rendered.status, text: run.rendered.body }
  const reply = run.reply as TextReply
  return { status: reply.status, text: reply.text }
}

chain('each of the seven operations renders a document/literal response', async () => {
  const expected: Record<string, RegExp> = {
    GetMessageVersion:
      /<tns:GetMessageVersionResponse><MessageVersion>gisPlatformVersion107<\/MessageVersion><\/tns:GetMessageVersionResponse>/,
    GetMessageFormats: /<MessageFormats>gisServiceCatalogMessageFormatSoap<\/MessageFormats>/,
    GetTokenServiceURL: /<TokenServiceURL>https:\/\/gis.example.org\/gis\/tokens\/generateToken<\/TokenServiceURL>/,
    GetFolders: /<FolderNames xsi:type="tns:ArrayOfString"><String>Basemaps<\/String><String>Demographics<\/String>/,
    GetServiceDescriptions:
      /<ServiceDescriptions xsi:type="tns:ArrayOfServiceDescription"><ServiceDescription xsi:type="tns:ServiceDescription"><Name>WorldOverview<\/Name><Type>MapServer<\/Type><Url>[^<]+<\/Url><ParentType><\/ParentType><Capabilities>Map,Query,Data<\/Capabilities><Description>[^<]*<\/Description><\/ServiceDescription>/,
    RequiresTokens: /<tns:RequiresTokensResponse><Result>false<\/Result><\/tns:RequiresTokensResponse>/,
    GetServiceDescriptionsEx: /<Name>Locators\/Addresses<\/Name><Type>GeocodeServer<\/Type>/,
  }
  for (const [op, pattern] of Object.entries(expected)) {
    const args = op === 'GetServiceDescriptionsEx' ? '<FolderName>Locators</FolderName>' : ''
    const r = await roundTrip(
      `<soap:Envelope xmlns:soap="${SOAP}" xmlns:gis="${NS}"><soap:Body><gis:${op}>${args}</gis:${op}></soap:Body></soap:Envelope>`,
    )
    assert.is(r.status, 200, op)
    assert.match(r.text, pattern, op)
    assert.match(r.text, `xmlns:tns="${NS}"`)
  }
})

chain('an unknown folder becomes a soap:Client fault', async () => {
  const r = await roundTrip(
    `<soap:Envelope xmlns:soap="${SOAP}"><soap:Body><GetServiceDescriptionsEx xmlns="${NS}"><FolderName>Atlantis</FolderName></GetServiceDescriptionsEx></soap:Body></soap:Envelope>`,
  )
  assert.is(r.status, 500)
  assert.match(r.text, '<faultcode>soap:Client</faultcode>')
  assert.match(r.text, "<faultstring>Folder 'Atlantis' does not exist.</faultstring>")
  assert.match(r.text, '<f:code>UnknownFolder</f:code>')
})

chain.run()
