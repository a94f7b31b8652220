import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import model from '../../../plugins/model/index.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { defaultConfigDir } from '../../../kernel/contract/paths.js'

const test = suite('plugin model')
const demo = { keyId: 'demo', group: 'demo', legacy: false }

const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-model-'))
for (const f of fs.readdirSync(defaultConfigDir))
  if (fs.statSync(path.join(defaultConfigDir, f)).isFile())
    fs.copyFileSync(path.join(defaultConfigDir, f), path.join(configDir, f))
fs.writeFileSync(
  path.join(configDir, 'keys.yaml'),
  `groups:\n  demo: {}\n  narrow: { models: [sim-chat-instruct] }\nkeys:\n  - { id: demo, group: demo, demo: true }\n`,
)
const models = fs.readFileSync(path.join(configDir, 'models.yaml'), 'utf8')
fs.writeFileSync(
  path.join(configDir, 'models.yaml'),
  models.replace(
    '  - id: sim-text-plain',
    '  - id: sim-off\n    model_type: chat\n    backend: sim\n    enabled: false\n  - id: sim-text-plain',
  ),
)
const kernel = makeKernel({ configDir })

test('no model: 400 model is required', async () => {
  const run = await runPlugin(model, {}, { kernel, principal: demo, body: { messages: [] } })
  assert.is(run.error?.status, 400)
  assert.is(run.error?.message, 'model is required')
})

test('default_model option fills a missing model with the deployment default', async () => {
  const run = await runPlugin(model, { default_model: true }, { kernel, principal: demo, body: {} })
  assert.is(run.ex.state.model?.model.id, 'sim-vision')
})

test('unknown model: 404 model X is not registered', async () => {
  const run = await runPlugin(model, {}, { kernel, principal: demo, body: { model: 'gpt-nope' } })
  assert.is(run.error?.status, 404)
  assert.is(run.error?.message, 'model gpt-nope is not registered')
})

test('exact catalog id', async () => {
  const run = await runPlugin(model, {}, { kernel, principal: demo, body: { model: 'sim-chat-instruct' } })
  assert.is(run.ex.state.model?.model.id, 'sim-chat-instruct')
  assert.is(run.ex.headers.get('x-gateway-model-variant'), undefined)
})

test("the model server's reported name maps back to the catalog model", async () => {
  const run = await runPlugin(model, {}, { kernel, principal: demo, body: { model: 'sim-thinker-8b' } })
  assert.is(run.ex.state.model?.model.id, 'sim-chat-thinking')
})

test('a family picks its default member and names itself in x-gateway-model-variant', async () => {
  const run = await runPlugin(model, {}, { kernel, principal: demo, body: { model: 'sim-chat' } })
  assert.is(run.ex.state.model?.model.id, 'sim-chat-instruct')
  assert.is(run.ex.state.model?.familyLevel, 'none')
  assert.is(run.ex.headers.get('x-gateway-model-variant'), 'sim-chat')
})

test('a family picks its member by reasoning effort, synonyms included', async () => {
  const run = await runPlugin(
    model,
    {},
    { kernel, principal: demo, body: { model: 'sim-chat', reasoning_effort: 'max' } },
  )
  assert.is(run.ex.state.model?.model.id, 'sim-chat-thinking')
  assert.is(run.ex.state.model?.familyLevel, 'high')
})

test('a model of another type: 400', async () => {
  const run = await runPlugin(model, { types: ['chat'] }, { kernel, principal: demo, body: { model: 'sim-embed' } })
  assert.is(run.error?.status, 400)
})

test('completions endpoint admits only models that support it', async () => {
  const bad = await runPlugin(
    model,
    { endpoint: 'completions' },
    { kernel, principal: demo, body: { model: 'sim-vision' } },
  )
  assert.is(bad.error?.status, 400)
  const good = await runPlugin(
    model,
    { endpoint: 'completions' },
    { kernel, principal: demo, body: { model: 'sim-chat-instruct' } },
  )
  assert.is(good.error, undefined)
})

test('a disabled model: 403 model is disabled', async () => {
  const run = await runPlugin(model, {}, { kernel, principal: demo, body: { model: 'sim-off' } })
  assert.is(run.error?.status, 403)
  assert.is(run.error?.message, 'model is disabled')
})

test("a model outside the group's list: 403 model not permitted for tenant", async () => {
  const narrow = { keyId: 'n', group: 'narrow', legacy: false }
  const run = await runPlugin(model, {}, { kernel, principal: narrow, body: { model: 'sim-vision' } })
  assert.is(run.error?.status, 403)
  assert.is(run.error?.message, 'model not permitted for tenant')
  const ok = await runPlugin(model, {}, { kernel, principal: narrow, body: { model: 'sim-chat-instruct' } })
  assert.is(ok.error, undefined)
})

test.run()

const life = suite('plugin model: retirement by the clock')
const at = (iso: string) => makeKernel({ configDir, now: () => Date.parse(iso) })

life('a deprecated model answers with the notice headers', async () => {
  const run = await runPlugin(
    model,
    {},
    { kernel: at('2026-11-21T00:00:00Z'), principal: demo, body: { model: 'sim-legacy-chat' } },
  )
  assert.ok(run.nextCalled)
  const h = run.ex.headers
  assert.is(h.get('x-gateway-model-status'), 'deprecated')
  assert.is(h.get('deprecation'), `@${Date.parse('2027-06-30T00:00:00Z') / 1000}`)
  assert.is(h.get('sunset'), 'Wed, 30 Jun 2027 00:00:00 GMT')
  assert.is(h.get('x-gateway-model-replacement'), 'sim-chat-instruct')
  assert.is(h.get('link'), '</v1/models/sim-chat-instruct>; rel="successor-version"')
})

life('the same model after retire_at: 410 model_retired naming the replacement, with no reload', async () => {
  const run = await runPlugin(
    model,
    {},
    { kernel: at('2027-07-01T00:00:00Z'), principal: demo, body: { model: 'sim-legacy-chat' } },
  )
  assert.is(run.error?.status, 410)
  assert.is(run.error?.code, 'model_retired')
  assert.is(run.error?.exposeCode, true)
  assert.is(run.error?.message, 'model sim-legacy-chat was retired; use sim-chat-instruct')
  assert.is(run.nextCalled, false)
})

life('on_retired: replace lets the replacement answer', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-replace-'))
  for (const f of fs.readdirSync(configDir)) fs.copyFileSync(path.join(configDir, f), path.join(dir, f))
  const text = fs.readFileSync(path.join(dir, 'models.yaml'), 'utf8')
  fs.writeFileSync(
    path.join(dir, 'models.yaml'),
    text.replace(/(id: sim-retired-chat[\s\S]*?on_retired: )refuse/, '$1replace'),
  )
  const k = makeKernel({ configDir: dir })
  const run = await runPlugin(model, {}, { kernel: k, principal: demo, body: { model: 'sim-retired-chat' } })
  assert.is(run.error, undefined)
  assert.is(run.ex.state.model?.model.id, 'sim-chat-instruct')
  assert.is(run.ex.headers.get('x-gateway-model-replacement'), 'sim-chat-instruct')
})

life('models that are not being retired carry no notice', async () => {
  const run = await runPlugin(
    model,
    {},
    { kernel: at('2026-11-21T00:00:00Z'), principal: demo, body: { model: 'sim-vision' } },
  )
  assert.is(run.ex.headers.get('x-gateway-model-status'), undefined)
  assert.is(run.ex.headers.get('deprecation'), undefined)
})

life('auto picks a capable model: images → a vision model', async () => {
  const img = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }]
  const run = await runPlugin(model, {}, { kernel, principal: demo, body: { model: 'auto', messages: img } })
  assert.is(run.ex.state.model?.model.supports_vision, true)
  const plain = await runPlugin(
    model,
    {},
    { kernel, principal: demo, body: { model: 'auto', messages: [{ role: 'user', content: 'hi' }] } },
  )
  assert.is(plain.ex.state.model?.model.model_type, 'chat')
  assert.not.ok(plain.ex.state.model?.model.status, 'never a model being retired')
})

life('auto with nothing able to serve: 503 no model is available to satisfy the auto request', async () => {
  const narrow = { keyId: 'n', group: 'narrow', legacy: false }
  const img = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }]
  const run = await runPlugin(model, {}, { kernel, principal: narrow, body: { model: 'auto', messages: img } })
  assert.is(run.error?.status, 503)
  assert.is(run.error?.message, 'no model is available to satisfy the auto request')
})

life.run()
