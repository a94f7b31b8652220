import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import modelCatalog from '../../../plugins/model-catalog/index.js'
import { configDirWith, makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { modelsWith } from '../../support/deployment-files.js'
import type { ModelEntry } from '../../../plugins/model-catalog/entry.js'

const test = suite('plugin model-catalog')
const kernel = makeKernel({ now: () => Date.parse('2026-11-21T00:00:00Z') })
const list = async () =>
  (
    (await runPlugin(modelCatalog, { action: 'list' }, { kernel })).reply as {
      body: { object: string; data: ModelEntry[] }
    }
  ).body
const get = (id: string) => runPlugin(modelCatalog, { action: 'retrieve' }, { kernel, params: { id } })

test('list: the OpenAI list envelope with every entry field of the spec', async () => {
  const body = await list()
  assert.is(body.object, 'list')
  const vision = body.data.find((m) => m.id === 'sim-vision')!
  for (const field of [
    'id',
    'object',
    'created',
    'owned_by',
    'model_type',
    'context_window',
    'supports_function_calling',
    'supports_response_schema',
    'supports_vision',
    'supports_tool_choice',
    'reasoning',
    'boons',
    'boon_details',
  ])
    assert.ok(field in vision, field)
  assert.not.ok('status' in vision, 'only models being retired have status')
})

test('list: a family entry has family, a text model its boons with the helper', async () => {
  const body = await list()
  const family = body.data.find((m) => m.id === 'sim-chat')!
  assert.equal(family.family, {
    default_level: 'none',
    members: {
      none: 'sim-chat-instruct',
      low: 'sim-chat-thinking',
      medium: 'sim-chat-thinking',
      high: 'sim-chat-thinking',
    },
  })
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

test('boon_details: active only for a boon that acts (vision with its helper on a text-only model; the tool boons on a model that calls functions, image_generation with its image helper; speculation with a draft, on a model that does not reason)', async () => {
  const boony = (id: string, served: string, boons: object, extra: object = {}) => ({
    id,
    model_type: 'chat',
    backend: 'sim',
    served_name: served,
    boons,
    ...extra,
  })
  const configDir = configDirWith({
    'models.yaml': modelsWith({
      models: [
        boony('b-all', 'b-all', {
          vision: { helper_model: 'sim-vision' },
          web_search: {},
          image_generation: { helper_model: 'sim-image' },
          speculation: { helper_model: 'sim-chat-instruct' },
        }),
        boony(
          'b-tools',
          'b-tools',
          { web_search: {}, image_generation: { helper_model: 'sim-image' } },
          { supports_function_calling: true },
        ),
        boony(
          'b-tools-half',
          'b-tools-half',
          { web_search: { active: false }, image_generation: {} },
          { supports_function_calling: true },
        ),
        boony('b-off', 'b-off', { vision: { helper_model: 'sim-vision', active: false } }),
        boony('b-helperless', 'b-helperless', { vision: {} }),
        boony('b-sees', 'b-sees', { vision: { helper_model: 'sim-vision' } }, { supports_vision: true }),
        boony(
          'b-thinks',
          'b-thinks',
          { speculation: { helper_model: 'sim-chat-instruct' } },
          { reasoning: { mode: 'mapped', default_level: 'low', levels: { low: {} } } },
        ),
        boony('b-self', 'b-self', { speculation: { helper_model: 'b-self' } }),
      ],
    }),
  })
  const k = makeKernel({ configDir })
  const entry = async (id: string) =>
    (
      (await runPlugin(modelCatalog, { action: 'retrieve' }, { kernel: k, params: { id } })).reply as {
        body: ModelEntry
      }
    ).body
  const all = await entry('b-all')
  assert.equal(all.boons, ['vision', 'web_search', 'image_generation', 'speculation'])
  assert.equal(
    all.boon_details,
    [
      { name: 'vision', active: true, helper_model: 'sim-vision' },
      { name: 'web_search', active: false },
      { name: 'image_generation', active: false, helper_model: 'sim-image' },
      { name: 'speculation', active: true, helper_model: 'sim-chat-instruct' },
    ],
    'the tool boons need a model that calls functions',
  )
  assert.equal(
    (await entry('b-thinks')).boon_details,
    [{ name: 'speculation', active: false, helper_model: 'sim-chat-instruct' }],
    'a draft cannot stand in for reasoning',
  )
  assert.equal(
    (await entry('b-self')).boon_details,
    [{ name: 'speculation', active: false, helper_model: 'b-self' }],
    'its own draft',
  )
  assert.equal((await entry('b-tools')).boon_details, [
    { name: 'web_search', active: true },
    { name: 'image_generation', active: true, helper_model: 'sim-image' },
  ])
  assert.equal(
    (await entry('b-tools-half')).boon_details,
    [
      { name: 'web_search', active: false },
      { name: 'image_generation', active: false },
    ],
    'switched off; no image model to draw with',
  )
  assert.equal(
    (await entry('b-off')).boon_details,
    [{ name: 'vision', active: false, helper_model: 'sim-vision' }],
    'switched off',
  )
  assert.equal(
    (await entry('b-helperless')).boon_details,
    [{ name: 'vision', active: false }],
    'no helper to describe images',
  )
  assert.equal(
    (await entry('b-sees')).boon_details,
    [{ name: 'vision', active: false, helper_model: 'sim-vision' }],
    'the model reads images itself',
  )
})

test('an image_generation helper that is not an image model stops the boot', () => {
  const configDir = configDirWith({
    'models.yaml': modelsWith({
      models: [
        {
          id: 'b-bad',
          model_type: 'chat',
          backend: 'sim',
          served_name: 'b-bad',
          boons: { image_generation: { helper_model: 'sim-vision' } },
        },
      ],
    }),
  })
  assert.throws(
    () => makeKernel({ configDir }),
    /model b-bad: boon image_generation: helper_model sim-vision is not an image model/,
  )
})

test('retrieve: an unknown id is 404 model X is not registered', async () => {
  const r = await get('nope')
  assert.is(r.error?.status, 404)
  assert.is(r.error?.message, 'model nope is not registered')
})

test("model_type keeps to the spec's six values: a rerank model is listed as embedding with supports_rerank", async () => {
  const six = ['chat', 'embedding', 'image', 'audio_speech', 'audio_transcription', 'video']
  const body = await list()
  for (const m of body.data) assert.ok(six.includes(m.model_type), `${m.id}: ${m.model_type}`)
  const rerank = body.data.find((m) => m.id === 'sim-rerank')!
  assert.equal([rerank.model_type, rerank.supports_rerank], ['embedding', true])
  assert.equal(((await get('sim-rerank')).reply as { body: ModelEntry }).body, rerank)
  assert.not.ok(
    body.data.some((m) => m.id !== 'sim-rerank' && 'supports_rerank' in m),
    'only rerank models say it',
  )
})

test('a caller sees only what its group and its key may use; another name answers as an unknown one', async () => {
  const h = (n: number) => `"sha256:${String(n).repeat(64)}"`
  const k = makeKernel({
    configDir: configDirWith({
      'keys.yaml': `groups:
  demo: {}
  narrow: { models: [sim-chat-instruct, sim-vision] }
  family: { models: [sim-chat] }
keys:
  - { id: demo, group: demo, demo: true }
  - { id: n, group: narrow, hash: ${h(1)} }
  - { id: one, group: narrow, models: [sim-vision], hash: ${h(2)} }
  - { id: f, group: family, hash: ${h(3)} }
  - { id: thinking, group: demo, models: [sim-chat-thinking], hash: ${h(4)} }
`,
    }),
  })
  const seen = async (principal: { keyId: string; group: string }) =>
    (
      (await runPlugin(modelCatalog, { action: 'list' }, { kernel: k, principal: { ...principal, legacy: false } }))
        .reply as { body: { data: ModelEntry[] } }
    ).body.data.map((m) => m.id)
  const retrieve = (id: string, principal: { keyId: string; group: string }) =>
    runPlugin(
      modelCatalog,
      { action: 'retrieve' },
      { kernel: k, params: { id }, principal: { ...principal, legacy: false } },
    )
  // The group lists the family's `none` member: the family too (asked for at level none, it is permitted).
  assert.equal((await seen({ keyId: 'n', group: 'narrow' })).sort(), ['sim-chat', 'sim-chat-instruct', 'sim-vision'])
  assert.equal(await seen({ keyId: 'one', group: 'narrow' }), ['sim-vision'])
  // A family listed: the family entry, not its members by their own names.
  assert.equal(await seen({ keyId: 'f', group: 'family' }), ['sim-chat'])
  // A key limited to one member: that member, and the family (a request for it at the member's levels is permitted).
  assert.equal(await seen({ keyId: 'thinking', group: 'demo' }), ['sim-chat-thinking', 'sim-chat'])

  const hidden = await retrieve('sim-chat-instruct', { keyId: 'one', group: 'narrow' })
  const unknown = await retrieve('no-such-model', { keyId: 'one', group: 'narrow' })
  assert.equal([hidden.error?.status, hidden.error?.message], [404, 'model sim-chat-instruct is not registered'])
  assert.equal([unknown.error?.status, unknown.error?.message], [404, 'model no-such-model is not registered'])
  assert.is(
    (await retrieve('sim-instruct-8b', { keyId: 'one', group: 'narrow' })).error?.status,
    404,
    'nor by its server name',
  )
  assert.is(
    (await retrieve('sim-chat', { keyId: 'n', group: 'narrow' })).error,
    undefined,
    'its default member is listed',
  )
  assert.is((await retrieve('sim-chat', { keyId: 'one', group: 'narrow' })).error?.status, 404)
  assert.is(
    ((await retrieve('sim-vision', { keyId: 'one', group: 'narrow' })).reply as { body: ModelEntry }).body.id,
    'sim-vision',
  )
})

test.run()
