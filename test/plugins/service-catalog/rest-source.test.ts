import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { GatewayError } from '../../../kernel/contract/errors.js'
import { createLogger, type LogSink } from '../../../kernel/contract/log.js'
import { createRestSource, type RestSourceOptions } from '../../../plugins/service-catalog/rest-source.js'
import { startFakeRestCatalog, type FakeCatalog, type FakeRestServer } from './fake-rest-catalog.js'

const catalog: FakeCatalog = {
  rootServices: [
    { name: 'SampleWorldCities', type: 'MapServer' },
    { name: 'Geometry', type: 'GeometryServer' },
  ],
  folders: {
    Hydro: [
      { name: 'Hydro/Rivers', type: 'MapServer' },
      { name: 'Hydro/Rivers', type: 'FeatureServer' },
    ],
    Tools: [
      { name: 'Tools/Print', type: 'GPServer' },
      { name: 'Tools/Locator', type: 'GeocodeServer' },
      { name: 'Tiles', type: 'VectorTileServer' },
    ],
  },
}

let fake: FakeRestServer
let clock = 1_000_000
const logs: string[] = []
const sink: LogSink = { write: (line) => void logs.push(line) }

function source(overrides: Partial<RestSourceOptions> = {}) {
  return createRestSource({
    url: fake.url,
    token: '',
    ttlMs: 60_000,
    staleMs: 120_000,
    timeoutMs: 5_000,
    maxBytes: 1024 * 1024,
    servicesUrl: 'https://gis.example.org/arcgis/services',
    types: [],
    log: createLogger({ level: 'debug', sink }),
    now: () => clock,
    ...overrides,
  })
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

const test = suite('service-catalog REST source (fake REST catalog on 127.0.0.1)')

test.before(async () => {
  fake = await startFakeRestCatalog(catalog)
})
test.after(async () => fake.close())
test.before.each(() => {
  fake.requests.length = 0
  fake.mode = 'ok'
  fake.catalog = catalog
  clock = 1_000_000
  logs.length = 0
})

test('reads the root and each folder, names services Folder/Name, builds SOAP URLs', async () => {
  const src = source()
  const snap = await src.snapshot()
  assert.equal(snap.folders, ['Hydro', 'Tools'])
  assert.equal(
    snap.services.map((s) => `${s.folder}|${s.name}|${s.type}|${s.url}|${s.parentType}`),
    [
      '|SampleWorldCities|MapServer|https://gis.example.org/arcgis/services/SampleWorldCities/MapServer|',
      '|Geometry|GeometryServer|https://gis.example.org/arcgis/services/Geometry/GeometryServer|',
      'Hydro|Hydro/Rivers|MapServer|https://gis.example.org/arcgis/services/Hydro/Rivers/MapServer|',
      'Hydro|Hydro/Rivers|FeatureServer|https://gis.example.org/arcgis/services/Hydro/Rivers/FeatureServer|',
      'Tools|Tools/Print|GPServer|https://gis.example.org/arcgis/services/Tools/Print/GPServer|',
      'Tools|Tools/Locator|GeocodeServer|https://gis.example.org/arcgis/services/Tools/Locator/GeocodeServer|',
      'Tools|Tools/Tiles|VectorTileServer|https://gis.example.org/arcgis/services/Tools/Tiles/VectorTileServer|',
    ],
  )
  assert.equal([...fake.requests].sort(), [
    '/arcgis/rest/services/Hydro?f=json',
    '/arcgis/rest/services/Tools?f=json',
    '/arcgis/rest/services?f=json',
  ])
  await src.close()
})

test('a type filter keeps only the listed types', async () => {
  const snap = await source({ types: ['MapServer', 'GPServer'] }).snapshot()
  assert.equal(
    snap.services.map((s) => `${s.name}/${s.type}`),
    ['SampleWorldCities/MapServer', 'Hydro/Rivers/MapServer', 'Tools/Print/GPServer'],
  )
})

test('the token is sent as token=', async () => {
  await source({ token: 'abc&def' }).snapshot()
  assert.ok(
    fake.requests.every((r) => r.includes('token=abc%26def')),
    fake.requests.join(' '),
  )
})

test('cached for the TTL, fetched again after it', async () => {
  const src = source()
  await src.snapshot()
  const first = fake.requests.length
  assert.is(first, 3)
  clock += 59_000
  await src.snapshot()
  assert.is(fake.requests.length, first)
  fake.catalog = { rootServices: [{ name: 'New', type: 'MapServer' }], folders: {} }
  clock += 2_000
  const snap = await src.snapshot()
  assert.is(fake.requests.length, first + 1)
  assert.equal(
    snap.services.map((s) => s.name),
    ['New'],
  )
})

test('concurrent requests share one fetch', async () => {
  const src = source()
  const snaps = await Promise.all([src.snapshot(), src.snapshot(), src.snapshot(), src.snapshot()])
  assert.is(fake.requests.length, 3)
  assert.ok(snaps.every((s) => s === snaps[0]))
})

test('while the REST catalog fails, the last catalog is served within the stale window, then a 502', async () => {
  const src = source()
  await src.snapshot()
  fake.mode = 'http-500'
  clock += 61_000
  const stale = await src.snapshot()
  assert.is(stale.services.length, 7)
  assert.ok(logs.some((l) => l.includes('serving the last catalog fetched')))
  clock += 120_000
  const err = await rejection(src.snapshot())
  assert.is(err.status, 502)
  assert.is(err.type, 'Unavailable')
  assert.is(err.message, 'The service catalog is unavailable.')
})

test('nothing cached and a failing catalog: 502 for HTTP errors, error JSON, non-JSON and oversize documents', async () => {
  for (const mode of ['http-500', 'error-json', 'garbage', 'huge'] as const) {
    fake.mode = mode
    const err = await rejection(source({ maxBytes: 16 * 1024 }).snapshot())
    assert.is(err.status, 502, mode)
    assert.not.match(err.message, '127.0.0.1') // the client learns nothing of the upstream
  }
})

test('an unreachable REST catalog: 502', async () => {
  const err = await rejection(source({ url: 'http://127.0.0.1:9/arcgis/rest/services', timeoutMs: 2000 }).snapshot())
  assert.is(err.status, 502)
})

test('a folder that fails fails the whole fetch (no partial catalog)', async () => {
  fake.catalog = { rootServices: [{ name: 'A', type: 'MapServer' }], folders: { Hydro: [] }, brokenFolders: ['Ghost'] }
  const err = await rejection(source().snapshot())
  assert.is(err.status, 502)
  assert.ok(fake.requests.includes('/arcgis/rest/services/Ghost?f=json'))
})

test.run()
