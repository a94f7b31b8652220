import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { load as loadYaml } from 'js-yaml'
import { GatewayError } from '../../../kernel/contract/errors.js'
import { defaultConfigDir } from '../../../kernel/contract/paths.js'
import type { SoapCall, SoapElement } from '../../../protocols/soap/contract.js'
import {
  bindArguments,
  CATALOG_OPERATIONS,
  catalogService,
  resolveOperation,
  runOperation,
  type CatalogAnswers,
  type CatalogSource,
} from '../../../plugins/service-catalog/operations.js'
import { checkCatalogFile, CatalogFileError, restServicesUrl } from '../../../plugins/service-catalog/catalog-file.js'
import { createStaticSource, serviceUrl } from '../../../plugins/service-catalog/static-source.js'

const NS = 'http://www.example.org/schemas/GIS/10.7'

function arg(local: string, text: string, extra: Partial<SoapElement> = {}): SoapElement {
  return { local, namespace: '', text, children: [], nil: false, ...extra }
}

function call(operation: string, args: SoapElement[] = [], namespace = NS): SoapCall {
  return { operation, namespace, args, headers: [], soapAction: '' }
}

function gatewayError(fn: () => unknown): GatewayError {
  try {
    fn()
  } catch (err) {
    if (err instanceof GatewayError) return err
    throw err
  }
  assert.unreachable('no error')
  throw new Error('unreachable')
}

async function rejection(p: Promise<unknown>): Promise<GatewayError> {
  try {
    await p
  } catch (err) {
    if (err instanceof GatewayError) return err
    throw err
  }
  assert.unreachable('no error')
  throw new Error('unreachable')
}

const source: CatalogSource = createStaticSource(
  ['Basemaps', 'Specialty'],
  [
    { name: 'Root', type: 'MapServer', capabilities: 'Map', description: 'r', parent_type: '', url: '' },
    {
      name: 'Basemaps/Streets',
      type: 'MapServer',
      capabilities: 'Map,Query,Data',
      description: 's',
      parent_type: '',
      url: '',
    },
    { name: 'Specialty/Cities', type: 'MapServer', capabilities: 'Map', description: '', parent_type: '', url: '' },
    {
      name: 'Specialty/Cities',
      type: 'WMSServer',
      capabilities: 'WMS',
      description: '',
      parent_type: 'MapServer',
      url: '',
    },
  ],
  'https://gis.example.org/gis/services/',
)

const answers: CatalogAnswers = {
  messageVersion: 'gisPlatformVersion105',
  messageFormats: 'gisServiceCatalogMessageFormatSoapOrBin',
  tokensRequired: true,
  tokenServiceUrl: 'https://gis.example.org/tokens',
}

const op = (name: string) => CATALOG_OPERATIONS.find((o) => o.name === name)!

const ops = suite('service-catalog operations')

ops('the table: seven operations in the order of the original WSDL, the wire names of the spec', () => {
  assert.equal(
    CATALOG_OPERATIONS.map(
      (o) =>
        `${o.name}(${o.input.map((f) => f.name).join(',')})→${o.output.map((f) => `${f.name}:${f.type}`).join(',')}`,
    ),
    [
      'GetMessageVersion()→MessageVersion:gisPlatformVersion',
      'GetMessageFormats()→MessageFormats:gisServiceCatalogMessageFormat',
      'GetTokenServiceURL()→TokenServiceURL:xs:string',
      'GetFolders()→FolderNames:ArrayOfString',
      'GetServiceDescriptions()→ServiceDescriptions:ArrayOfServiceDescription',
      'RequiresTokens()→Result:xs:boolean',
      'GetServiceDescriptionsEx(FolderName)→ServiceDescriptions:ArrayOfServiceDescription',
    ],
  )
  const service = catalogService(NS, 'https://x/catalog')
  assert.equal(
    [service.serviceName, service.portName, service.bindingName, service.address],
    ['Catalog', 'ServiceCatalogPort', 'ServiceCatalogBinding', 'https://x/catalog'],
  )
  assert.is(catalogService(NS, undefined).address, undefined)
})

ops('the simple answers come from config', async () => {
  assert.equal(await runOperation(op('GetMessageVersion'), {}, answers, source), {
    MessageVersion: 'gisPlatformVersion105',
  })
  assert.equal(await runOperation(op('GetMessageFormats'), {}, answers, source), {
    MessageFormats: 'gisServiceCatalogMessageFormatSoapOrBin',
  })
  assert.equal(await runOperation(op('GetTokenServiceURL'), {}, answers, source), {
    TokenServiceURL: 'https://gis.example.org/tokens',
  })
  assert.equal(await runOperation(op('RequiresTokens'), {}, answers, source), { Result: true })
})

ops('GetFolders lists the folders; GetServiceDescriptions lists every service of every folder', async () => {
  assert.equal(await runOperation(op('GetFolders'), {}, answers, source), {
    FolderNames: { String: ['Basemaps', 'Specialty'] },
  })
  const all = (await runOperation(op('GetServiceDescriptions'), {}, answers, source)) as {
    ServiceDescriptions: { ServiceDescription: { Name: string; Type: string; Url: string; ParentType: string }[] }
  }
  assert.equal(
    all.ServiceDescriptions.ServiceDescription.map((d) => `${d.Name}|${d.Type}|${d.ParentType}|${d.Url}`),
    [
      'Root|MapServer||https://gis.example.org/gis/services/Root/MapServer',
      'Basemaps/Streets|MapServer||https://gis.example.org/gis/services/Basemaps/Streets/MapServer',
      'Specialty/Cities|MapServer||https://gis.example.org/gis/services/Specialty/Cities/MapServer',
      'Specialty/Cities|WMSServer|MapServer|https://gis.example.org/gis/services/Specialty/Cities/MapServer/WMSServer',
    ],
  )
})

ops('GetServiceDescriptionsEx: an empty FolderName is the root; a folder lists its own services', async () => {
  const names = async (folder: string) =>
    (
      (await runOperation(op('GetServiceDescriptionsEx'), { FolderName: folder }, answers, source)) as {
        ServiceDescriptions: { ServiceDescription: { Name: string; Type: string }[] }
      }
    ).ServiceDescriptions.ServiceDescription.map((d) => `${d.Name}/${d.Type}`)
  assert.equal(await names(''), ['Root/MapServer'])
  assert.equal(await names('  '), ['Root/MapServer'])
  assert.equal(await names('Basemaps'), ['Basemaps/Streets/MapServer'])
  assert.equal(await names('specialty'), ['Specialty/Cities/MapServer', 'Specialty/Cities/WMSServer'])
})

ops('GetServiceDescriptionsEx: an unknown folder is a client error (UnknownFolder)', async () => {
  const err = await rejection(runOperation(op('GetServiceDescriptionsEx'), { FolderName: 'Nowhere' }, answers, source))
  assert.is(err.status, 400)
  assert.is(err.type, 'UnknownFolder')
  assert.match(err.message, "Folder 'Nowhere' does not exist")
})

ops('resolveOperation: by local name, in the catalog namespace or none; anything else is UnknownOperation', () => {
  assert.is(resolveOperation(call('GetFolders'), NS).name, 'GetFolders')
  assert.is(resolveOperation(call('GetFolders', [], ''), NS).name, 'GetFolders')
  const unknown = gatewayError(() => resolveOperation(call('DeleteEverything'), NS))
  assert.is(unknown.status, 400)
  assert.is(unknown.type, 'UnknownOperation')
  assert.is(unknown.message, "Unknown operation '{http://www.example.org/schemas/GIS/10.7}DeleteEverything'.")
  assert.is(gatewayError(() => resolveOperation(call('GetFolders', [], 'urn:other'), NS)).type, 'UnknownOperation')
  assert.is(gatewayError(() => resolveOperation(call('getfolders'), NS)).type, 'UnknownOperation')
})

ops('bindArguments: by local name whatever the namespace', () => {
  const ex = op('GetServiceDescriptionsEx')
  assert.equal(bindArguments(ex, call('GetServiceDescriptionsEx', [arg('FolderName', 'A')])), { FolderName: 'A' })
  assert.equal(bindArguments(ex, call('GetServiceDescriptionsEx', [arg('FolderName', 'A', { namespace: NS })])), {
    FolderName: 'A',
  })
  assert.equal(bindArguments(ex, call('GetServiceDescriptionsEx', [arg('FolderName', '')])), { FolderName: '' })
  assert.equal(bindArguments(op('GetFolders'), call('GetFolders')), {})
})

ops('bindArguments: missing, repeated, unexpected, nil or structured arguments are InvalidArgument', () => {
  const ex = op('GetServiceDescriptionsEx')
  const cases: SoapCall[] = [
    call('GetServiceDescriptionsEx'),
    call('GetServiceDescriptionsEx', [arg('FolderName', 'A'), arg('FolderName', 'B')]),
    call('GetServiceDescriptionsEx', [arg('FolderName', 'A'), arg('Extra', 'x')]),
    call('GetServiceDescriptionsEx', [arg('FolderName', '', { nil: true })]),
    call('GetServiceDescriptionsEx', [arg('FolderName', '', { children: [arg('X', '')] })]),
  ]
  for (const c of cases) {
    const err = gatewayError(() => bindArguments(ex, c))
    assert.is(err.status, 400)
    assert.is(err.type, 'InvalidArgument')
  }
  assert.is(
    gatewayError(() => bindArguments(op('GetFolders'), call('GetFolders', [arg('FolderName', '')]))).type,
    'InvalidArgument',
  )
})

ops('serviceUrl: folder path, type, and the parent type for an extension', () => {
  assert.is(
    serviceUrl('https://h/gis/services', 'A/B', 'FeatureServer', ''),
    'https://h/gis/services/A/B/FeatureServer',
  )
  assert.is(
    serviceUrl('https://h/gis/services/', 'A/B', 'KmlServer', 'MapServer'),
    'https://h/gis/services/A/B/MapServer/KmlServer',
  )
  assert.is(serviceUrl('https://h/s', 'A B', 'MapServer', ''), 'https://h/s/A%20B/MapServer')
})

ops.run()

const file = suite('service-catalog config file')

file('the embedded default config/catalog.yaml is valid, with folders and several service types', () => {
  const raw = loadYaml(fs.readFileSync(path.join(defaultConfigDir, 'catalog.yaml'), 'utf8'))
  const f = checkCatalogFile('catalog.yaml', raw)
  assert.is(f.source, 'static')
  assert.is(f.access.require_token, false)
  assert.ok(f.static.folders.length >= 3)
  const types = new Set(f.static.services.map((s) => s.type))
  for (const t of ['MapServer', 'FeatureServer', 'GPServer', 'GeocodeServer', 'WMSServer']) assert.ok(types.has(t), t)
  const wms = f.static.services.find((s) => s.type === 'WMSServer')!
  assert.is(wms.parent_type, 'MapServer')
})

file('defaults are applied', () => {
  const f = checkCatalogFile('c.yaml', { namespace: NS })
  assert.is(f.public_url, '')
  assert.is(f.message_version, 'gisPlatformVersion107')
  assert.is(f.message_formats, 'gisServiceCatalogMessageFormatSoap')
  assert.equal(f.tokens, { required: false, service_url: '' })
  assert.equal(f.access, { require_token: false })
  assert.is(f.source, 'static')
  assert.equal(f.static, { folders: [], services: [] })
  assert.is(f.rest.ttl_seconds, 300)
})

file('bad files are refused with the place and the reason', () => {
  const bad = (raw: unknown, reason: RegExp) => {
    try {
      checkCatalogFile('c.yaml', raw)
    } catch (err) {
      assert.instance(err, CatalogFileError)
      assert.match((err as Error).message, reason)
      return
    }
    assert.unreachable(`accepted ${JSON.stringify(raw)}`)
  }
  bad({}, /namespace/)
  bad({ namespace: NS, message_version: 'gisPlatformVersion102' }, /message_version/)
  bad({ namespace: NS, colour: 'blue' }, /unknown property 'colour'/)
  bad(
    {
      namespace: NS,
      services_url: 'https://h/s',
      static: { folders: ['A'], services: [{ name: 'B/x', type: 'MapServer' }] },
    },
    /folder 'B' is not in static.folders/,
  )
  bad({ namespace: NS, static: { services: [{ name: 'x', type: 'MapServer' }] } }, /needs url, or set services_url/)
  bad(
    {
      namespace: NS,
      services_url: 'https://h/s',
      static: {
        services: [
          { name: 'x', type: 'MapServer' },
          { name: 'x', type: 'MapServer' },
        ],
      },
    },
    /listed twice/,
  )
  bad({ namespace: NS, source: 'rest' }, /rest.url is empty/)
  bad({ namespace: NS, source: 'rest', rest: { url: 'https://h/other' } }, /cannot be derived/)
})

file('restServicesUrl derives the SOAP services base from the REST one', () => {
  assert.is(restServicesUrl('https://h/arcgis/rest/services'), 'https://h/arcgis/services')
  assert.is(restServicesUrl('https://h:6443/arcgis/rest/services/?f=json'), 'https://h:6443/arcgis/services')
  assert.is(restServicesUrl('https://h/other'), undefined)
})

file.run()
