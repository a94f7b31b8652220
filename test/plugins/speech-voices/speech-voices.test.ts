import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import speechVoices from '../../../plugins/speech-voices/index.js'
import { configDirWith, makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import type { JsonReply } from '../../../kernel/contract/reply.js'

/** The demo tenant of the default keys.yaml, whose group may use every model. */
const demo = { keyId: 'demo', group: 'demo', legacy: false }

const test = suite('plugin speech-voices')

test('the voices of a speech model, by catalog id or server name; uploaded_voices empty', async () => {
  const run = await runPlugin(speechVoices, {}, { principal: demo, method: 'GET', query: 'model=sim-orpheus' })
  assert.equal((run.reply as JsonReply).body, {
    voices: ['tara', 'leah', 'jess', 'leo', 'dan', 'mia', 'zac', 'zoe'],
    uploaded_voices: [],
  })
  assert.not.ok(run.nextCalled, 'it answers')
})

test('errors: no model 400, unknown 404, not a speech model 400', async () => {
  const none = await runPlugin(speechVoices, {}, { principal: demo, method: 'GET' })
  assert.equal([none.error?.status, none.error?.message], [400, 'model is required'])
  const unknown = await runPlugin(speechVoices, {}, { principal: demo, method: 'GET', query: 'model=nope' })
  assert.equal([unknown.error?.status, unknown.error?.message], [404, 'model nope is not registered'])
  const chat = await runPlugin(speechVoices, {}, { principal: demo, method: 'GET', query: 'model=sim-whisper' })
  assert.equal([chat.error?.status, chat.error?.message], [400, 'model sim-whisper is not a speech model'])
})

test('a family name or auto is a chat name: 400 not a speech model, not 404', async () => {
  const family = await runPlugin(speechVoices, {}, { principal: demo, method: 'GET', query: 'model=sim-chat' })
  assert.equal([family.error?.status, family.error?.message], [400, 'model sim-chat is not a speech model'])
  const auto = await runPlugin(speechVoices, {}, { principal: demo, method: 'GET', query: 'model=auto' })
  assert.equal([auto.error?.status, auto.error?.message], [400, 'model auto is not a speech model'])
})

test("the caller's group: the catalog's permission check, by catalog id or the name asked", async () => {
  const kernel = makeKernel({
    configDir: configDirWith({
      'keys.yaml':
        'groups:\n  demo: {}\n  orpheus: { models: [sim-orpheus] }\nkeys:\n  - { id: demo, group: demo, demo: true }\n',
    }),
  })
  const principal = { keyId: 'k', group: 'orpheus', legacy: false }
  const ok = await runPlugin(speechVoices, {}, { kernel, principal, method: 'GET', query: 'model=sim-orpheus' })
  assert.is(ok.error, undefined)
  const refused = await runPlugin(speechVoices, {}, { kernel, principal, method: 'GET', query: 'model=sim-qwen3-tts' })
  assert.equal([refused.error?.status, refused.error?.message], [403, 'model not permitted for tenant'])
})

test.run()
