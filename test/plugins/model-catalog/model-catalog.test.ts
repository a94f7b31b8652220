import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import modelCatalog from '../../../plugins/model-catalog/index.js'
import { makeKernel, runPlugin } from '../../harness.js'
import type { ModelEntry } from '../../../plugins/model-catalog/entry.js'

const test = suite('plugin model-catalog')
const kernel = makeKernel({ now: () => Date.parse('2026-11-21T00:00:00Z') })
const list = async () => ((await runPlugin(modelCatalog, { action: 'list' }, { kernel })).reply as { body: { object: string; data: ModelEntry[] } }).body
const get = (id: string) => runPlugin(modelCatalog, { action: 'retrieve' }, { kernel, params: { id } })

test('list: the OpenAI list envelope with every entry field of the spec', async () => {
  const body = await list()
  assert.is(body.object, 'list')
  const vision = body.data.find((m) => m.id === 'sim-vision')!
  for (const field of ['id', 'object', 'created', 'owned_by', 'model_type', 'context_window', 'supports_function_calling', 'supports_response_schema', 'supports_vision', 'supports_tool_choice', 'reasoning', 'boons', 'boon_details'])
    assert.ok(field in vision, field)
  assert.not.ok('status' in vision, 'only models being retired have status')
})

test('list: a family entry has family, a text model its boons with the helper', async () => {
  const body = await list()
  const family = body.data.find((m) => m.id === 'sim-chat')!
  assert.equal(family.family, { default_level: 'none', members: { none: 'sim-chat-instruct', low: 'sim-chat-thinking', medium: 'sim-chat-thinking', high: 'sim-chat-thinking' } })
  const boon = body.data.find((m) => m.id === 'sim-text-boon')!
  assert.equal(boon.boons, ['vision'])
  assert.equal(boon.boon_details, [{ name: 'vision', active: true, helper_model: 'sim-vision' }])
  assert.equal(body.data.find((m) => m.id === 'sim-text-plain')!.reasoning, { mode: 'unsupported' })
})

test('list: models being retired carry status, replacement, retire_at, note; retired ones are left out', async () => {
  const body = await list()
  const legacy = body.data.find((m) => m.id === 'sim-legacy-chat')!
  assert.is(legacy.status, 'deprecated')
  assert.is(legacy.replacement, 'sim-chat-instruct')
  assert.is(legacy.retire_at, '2027-06-30T00:00:00Z')
  assert.type(legacy.note, 'string')
  assert.not.ok(body.data.some((m) => m.id === 'sim-retired-chat'))
})

test('retrieve: by id, by family, by reported server name; retired still retrievable', async () => {
  assert.is(((await get('sim-embed')).reply as { body: ModelEntry }).body.model_type, 'embedding')
  assert.ok(((await get('sim-chat')).reply as { body: ModelEntry }).body.family)
  assert.is(((await get('sim-legacy-chat-old')).reply as { body: ModelEntry }).body.id, 'sim-retired-chat')
  assert.is(((await get('sim-retired-chat')).reply as { body: ModelEntry }).body.status, 'deprecated')
})

test('retrieve: an unknown id is 404 model X is not registered', async () => {
  const r = await get('nope')
  assert.is(r.error?.status, 404)
  assert.is(r.error?.message, 'model nope is not registered')
})

test.run()
