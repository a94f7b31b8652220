import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import model from '../../../plugins/model/index.js'
import { makeKernel, runPlugin } from '../../harness.js'
import { defaultConfigDir } from '../../../kernel/paths.js'

const test = suite('plugin model')
const demo = { keyId: 'demo', group: 'demo', legacy: false }

const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-model-'))
for (const f of fs.readdirSync(defaultConfigDir)) fs.copyFileSync(path.join(defaultConfigDir, f), path.join(configDir, f))
fs.writeFileSync(path.join(configDir, 'keys.yaml'), `groups:\n  demo: {}\n  narrow: { models: [sim-chat-instruct] }\nkeys:\n  - { id: demo, group: demo, demo: true }\n`)
const models = fs.readFileSync(path.join(configDir, 'models.yaml'), 'utf8')
fs.writeFileSync(path.join(configDir, 'models.yaml'), models.replace('  - id: sim-text-plain', '  - id: sim-off\n    model_type: chat\n    backend: sim\n    enabled: false\n  - id: sim-text-plain'))
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
  const run = await runPlugin(model, {}, { kernel, principal: demo, body: { model: 'sim-chat', reasoning_effort: 'max' } })
  assert.is(run.ex.state.model?.model.id, 'sim-chat-thinking')
  assert.is(run.ex.state.model?.familyLevel, 'high')
})

test('a model of another type: 400', async () => {
  const run = await runPlugin(model, { types: ['chat'] }, { kernel, principal: demo, body: { model: 'sim-embed' } })
  assert.is(run.error?.status, 400)
})

test('completions endpoint admits only models that support it', async () => {
  const bad = await runPlugin(model, { endpoint: 'completions' }, { kernel, principal: demo, body: { model: 'sim-vision' } })
  assert.is(bad.error?.status, 400)
  const good = await runPlugin(model, { endpoint: 'completions' }, { kernel, principal: demo, body: { model: 'sim-chat-instruct' } })
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
