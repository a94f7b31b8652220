/**
 * The npm `soap` client (node-soap), given only `<gateway>/catalog?wsdl`, calls all seven
 * operations and gets the configured values; then the same against a catalog fronting a
 * (fake, loopback) REST catalog; then the token setting.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { load as loadYaml } from 'js-yaml'
import * as soap from 'soap'
import { defaultConfigDir } from '../../kernel/contract/paths.js'
import type { TestGateway } from '../support/gateway.js'
import { TEST_KEY } from '../support/gateway.js'
import { startFakeRestCatalog, type FakeRestServer } from '../plugins/service-catalog/fake-rest-catalog.js'
import { CATALOG_NS, startCatalogGateway } from './catalog-gateway.js'

interface ConfiguredService {
  name: string
  type: string
  parent_type?: string
  capabilities?: string
  description?: string
}

interface ConfiguredCatalog {
  namespace: string
  services_url: string
  message_version: string
  message_formats: string
  tokens: { required: boolean; service_url: string }
  static: { folders: string[]; services: ConfiguredService[] }
}

/** The embedded default catalog.yaml: what the client must get back. */
const configured = loadYaml(fs.readFileSync(path.join(defaultConfigDir, 'catalog.yaml'), 'utf8')) as ConfiguredCatalog

/** A ServiceDescription as node-soap returns it (it keeps the xsi:type under `attributes`). */
interface ReturnedDescription {
  attributes?: Record<string, string>
  Name: string
  Type: string
  Url: string
  ParentType: string
  Capabilities: string
  Description: string
}

function expectedDescription(s: ConfiguredService): Omit<ReturnedDescription, 'attributes'> {
  const parent = s.parent_type ?? ''
  return {
    Name: s.name,
    Type: s.type,
    Url: `${configured.services_url}/${s.name}/${parent === '' ? '' : `${parent}/`}${s.type}`,
    ParentType: parent,
    Capabilities: s.capabilities ?? '',
    Description: s.description ?? '',
  }
}

function withoutAttributes(list: ReturnedDescription[] | undefined): Omit<ReturnedDescription, 'attributes'>[] {
  return (list ?? []).map(({ attributes: _a, ...rest }) => rest)
}

function folderOf(name: string): string {
  return name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : ''
}

const test = suite('e2e catalog: node-soap from the WSDL alone')
let gw: TestGateway
let client: soap.Client

test.before(async () => {
  gw = await startCatalogGateway()
  client = await soap.createClientAsync(`${gw.url}/catalog?wsdl`, { disableCache: true })
})
test.after(async () => gw.close())

test('the WSDL names the port, binding and service; the address points back at /catalog', () => {
  const described = client.describe() as Record<string, Record<string, Record<string, unknown>>>
  assert.equal(Object.keys(described), ['Catalog'])
  assert.equal(Object.keys(described.Catalog!), ['ServiceCatalogPort'])
  assert.equal(Object.keys(described.Catalog!.ServiceCatalogPort!), [
    'GetMessageVersion',
    'GetMessageFormats',
    'GetTokenServiceURL',
    'GetFolders',
    'GetServiceDescriptions',
    'RequiresTokens',
    'GetServiceDescriptionsEx',
  ])
})

test('GetMessageVersion', async () => {
  const [res] = await client.GetMessageVersionAsync({})
  assert.equal(res, { MessageVersion: configured.message_version })
})

test('GetMessageFormats', async () => {
  const [res] = await client.GetMessageFormatsAsync({})
  assert.equal(res, { MessageFormats: configured.message_formats })
})

test('GetTokenServiceURL', async () => {
  const [res] = await client.GetTokenServiceURLAsync({})
  assert.equal(res, { TokenServiceURL: configured.tokens.service_url })
})

test('RequiresTokens (a JS boolean)', async () => {
  const [res] = await client.RequiresTokensAsync({})
  assert.equal(res, { Result: configured.tokens.required })
})

test('GetFolders', async () => {
  const [res] = await client.GetFoldersAsync({})
  assert.equal(res.FolderNames.String, configured.static.folders)
  assert.is(res.FolderNames.attributes['xsi:type'], 'tns:ArrayOfString')
})

test('GetServiceDescriptions: every service of every folder, all six fields', async () => {
  const [res] = await client.GetServiceDescriptionsAsync({})
  const list = res.ServiceDescriptions.ServiceDescription as ReturnedDescription[]
  assert.equal(withoutAttributes(list), configured.static.services.map(expectedDescription))
  assert.ok(list.every((d) => d.attributes?.['xsi:type'] === 'tns:ServiceDescription'))
})

test('GetServiceDescriptionsEx: each folder, and the root for an empty FolderName', async () => {
  for (const folder of ['', ...configured.static.folders]) {
    const [res, rawResponse, , rawRequest] = await client.GetServiceDescriptionsExAsync({ FolderName: folder })
    const expected = configured.static.services.filter((s) => folderOf(s.name) === folder).map(expectedDescription)
    // node-soap returns null for an empty array element.
    const list = (res?.ServiceDescriptions?.ServiceDescription ?? []) as ReturnedDescription[]
    assert.equal(withoutAttributes(list), expected, `folder '${folder}'`)
    assert.match(rawRequest as string, '<FolderName>') // unqualified argument, as ArcGIS clients send
    assert.match(rawResponse as string, '<tns:GetServiceDescriptionsExResponse>')
  }
})

test('an unknown folder: the call rejects with a soap:Client fault, HTTP 500', async () => {
  try {
    await client.GetServiceDescriptionsExAsync({ FolderName: 'Atlantis' })
  } catch (err) {
    const e = err as {
      response?: { status: number }
      root?: { Envelope: { Body: { Fault: { faultcode: string; faultstring: string } } } }
    }
    assert.is(e.response?.status, 500)
    assert.is(e.root?.Envelope.Body.Fault.faultcode, 'soap:Client')
    assert.is(e.root?.Envelope.Body.Fault.faultstring, "Folder 'Atlantis' does not exist.")
    return
  }
  assert.unreachable('the call succeeded')
})

test('the same client with SOAP 1.2 envelopes gets soap:VersionMismatch', async () => {
  const v12 = await soap.createClientAsync(`${gw.url}/catalog?wsdl`, { disableCache: true, forceSoap12Headers: true })
  try {
    await v12.GetFoldersAsync({})
  } catch (err) {
    const e = err as { response?: { status: number }; body?: string }
    assert.is(e.response?.status, 500)
    assert.match(e.body ?? '', '<faultcode>soap:VersionMismatch</faultcode>')
    return
  }
  assert.unreachable('a SOAP 1.2 call succeeded')
})

test.run()

// ---------------------------------------------------------------------------------------------

const rest = suite('e2e catalog: fronting a REST catalog (fake, on 127.0.0.1)')
let restGw: TestGateway
let fake: FakeRestServer

rest.before(async () => {
  fake = await startFakeRestCatalog({
    rootServices: [{ name: 'SampleWorldCities', type: 'MapServer' }],
    folders: {
      Hydro: [{ name: 'Hydro/Rivers', type: 'FeatureServer' }],
      Tools: [{ name: 'Tools/Print', type: 'GPServer' }],
    },
  })
  restGw = await startCatalogGateway({
    files: {
      'config/catalog.yaml': `namespace: ${CATALOG_NS}
source: rest
rest: { url: "${fake.url}", ttl_seconds: 300 }
tokens: { required: true, service_url: "${fake.url.replace('/rest/services', '/tokens')}" }
`,
    },
  })
})
rest.after(async () => {
  await restGw.close()
  await fake.close()
})

rest('node-soap lists the live folders and services, with SOAP URLs', async () => {
  const c = await soap.createClientAsync(`${restGw.url}/catalog?wsdl`, { disableCache: true })
  const [folders] = await c.GetFoldersAsync({})
  assert.equal(folders.FolderNames.String, ['Hydro', 'Tools'])
  const [all] = await c.GetServiceDescriptionsAsync({})
  const soapBase = fake.url.replace('/rest/services', '/services')
  assert.equal(
    withoutAttributes(all.ServiceDescriptions.ServiceDescription).map((d) => `${d.Name} ${d.Type} ${d.Url}`),
    [
      `SampleWorldCities MapServer ${soapBase}/SampleWorldCities/MapServer`,
      `Hydro/Rivers FeatureServer ${soapBase}/Hydro/Rivers/FeatureServer`,
      `Tools/Print GPServer ${soapBase}/Tools/Print/GPServer`,
    ],
  )
  const [hydro] = await c.GetServiceDescriptionsExAsync({ FolderName: 'Hydro' })
  assert.equal(
    withoutAttributes(hydro.ServiceDescriptions.ServiceDescription).map((d) => d.Name),
    ['Hydro/Rivers'],
  )
  const [tokens] = await c.RequiresTokensAsync({})
  assert.equal(tokens, { Result: true })
  // Cached: the three calls above fetched the REST catalog once (root + two folders).
  assert.is(fake.requests.length, 3)
})

rest.run()

// ---------------------------------------------------------------------------------------------

const secured = suite('e2e catalog: access.require_token')
let securedGw: TestGateway

secured.before(async () => {
  securedGw = await startCatalogGateway({
    files: {
      'config/catalog.yaml': fs
        .readFileSync(path.join(defaultConfigDir, 'catalog.yaml'), 'utf8')
        .replace(/require_token:\s*false/, 'require_token: true'),
    },
  })
})
secured.after(async () => securedGw.close())

secured('without a token: the WSDL and calls are refused with soap:Client faults', async () => {
  const wsdl = await fetch(`${securedGw.url}/catalog?wsdl`)
  assert.is(wsdl.status, 500)
  assert.match(await wsdl.text(), '<faultcode>soap:Client</faultcode>')
  const call = await fetch(`${securedGw.url}/catalog`, {
    method: 'POST',
    headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' },
    body: `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><GetFolders xmlns="${CATALOG_NS}"/></soap:Body></soap:Envelope>`,
  })
  assert.is(call.status, 500)
  assert.match(await call.text(), '<f:code>Unauthorized</f:code>')
})

secured('with the gateway key as ?token=, node-soap works', async () => {
  const token = `token=${encodeURIComponent(TEST_KEY)}`
  const c = await soap.createClientAsync(`${securedGw.url}/catalog?wsdl&${token}`, { disableCache: true })
  c.setEndpoint(`${securedGw.url}/catalog?${token}`)
  const [res] = await c.GetFoldersAsync({})
  assert.equal(res.FolderNames.String, configured.static.folders)
})

secured.run()
