import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import path from 'node:path'
import { configDirWith, makeKernel } from '../../bin/testing/harness.js'
import { modelsWith } from '../support/deployment-files.js'
import { loadSimConfig } from '../../sim/index.js'
import { repoRoot } from '../../kernel/contract/paths.js'
import { reportedNameOf } from '../../kernel/contract/catalog.js'

const test = suite("catalog: a reply's model maps back to one entry")
const chat = (id: string, extra: object) => ({ id, model_type: 'chat', backend: 'sim', ...extra })
const load = (models: object[]) => () =>
  makeKernel({ configDir: configDirWith({ 'models.yaml': modelsWith({ models }) }) })

test('two enabled entries reporting the same server name: refused at load, naming both', () => {
  assert.throws(
    load([chat('twin-a', { served_name: 'shared-3b' }), chat('twin-b', { served_name: 'shared-3b' })]),
    (err: Error) => {
      assert.is(err.name, 'ConfigError')
      assert.match(err.message, /models\.yaml: models twin-a and twin-b both report the server name shared-3b/)
      assert.match(err.message, /reported_name/)
      return true
    },
  )
  // The same against an entry of the default catalog.
  assert.throws(
    load([chat('again-instruct', { served_name: 'sim-instruct-8b' })]),
    /models sim-chat-instruct and again-instruct both report the server name sim-instruct-8b/,
  )
})

test('a distinct reported_name on one of them, or one disabled, is accepted', () => {
  const k = load([
    chat('twin-a', { served_name: 'shared-3b' }),
    chat('twin-b', { served_name: 'shared-3b', reported_name: 'shared-3b-b' }),
  ])()
  assert.is(k.catalog.byReportedName('shared-3b')?.id, 'twin-a')
  assert.is(k.catalog.byReportedName('shared-3b-b')?.id, 'twin-b')
  const off = load([chat('twin-off', { served_name: 'sim-instruct-8b', enabled: false })])()
  assert.is(
    off.catalog.byReportedName('sim-instruct-8b')?.id,
    'sim-chat-instruct',
    'the enabled entry, even when the disabled one is listed first',
  )
})

test("a reported name that is another entry's id or a family's name: refused", () => {
  assert.throws(
    load([chat('shadow', { served_name: 'sim-vision' })]),
    /model shadow reports the server name sim-vision, which is the name of model sim-vision/,
  )
  assert.throws(load([chat('shadow', { served_name: 'sim-chat' })]), /which is the name of family sim-chat/)
})

test('the default catalog: every entry reports its own name; the retired alias keeps its own', () => {
  const { catalog } = makeKernel()
  const names = catalog
    .models()
    .filter((m) => m.enabled !== false)
    .map(reportedNameOf)
  assert.is(new Set(names).size, names.length)
  for (const m of catalog.models())
    if (m.enabled !== false) assert.is(catalog.byReportedName(reportedNameOf(m))?.id, m.id, m.id)
  assert.is(catalog.byReportedName('sim-text-3b')?.id, 'sim-text-boon')
  assert.is(catalog.byReportedName('sim-text-3b-plain')?.id, 'sim-text-plain')
  assert.is(catalog.byReportedName('sim-legacy-chat')?.id, 'sim-legacy-chat')
  assert.is(catalog.byReportedName('sim-legacy-chat-old')?.id, 'sim-retired-chat')
})

test("the simulator serves every served_name of the default catalog's embedded backends", () => {
  const { catalog, config } = makeKernel()
  const served = new Set(loadSimConfig(path.join(repoRoot, 'config', 'simulator.yaml')).models.map((m) => m.name))
  for (const m of catalog.models())
    if (config.models.backends[m.backend]?.url === 'embedded')
      assert.ok(served.has(m.served_name ?? m.id), `${m.id} → ${m.served_name ?? m.id}`)
})

test.run()
