import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import maxTokens from '../../../plugins/max-tokens/index.js'
import { runPlugin, setupPlugin } from '../../../bin/testing/harness.js'

const schema = suite('plugin max-tokens: options')

schema('limit must be a positive integer; mode clamp or refuse; nothing else', async () => {
  for (const bad of [{ limit: 0 }, { limit: 'ten' }, { limit: 10, mode: 'maybe' }, { limit: 10, extra: 1 }]) {
    try {
      await setupPlugin(maxTokens, bad)
      assert.unreachable(`accepted ${JSON.stringify(bad)}`)
    } catch (err) {
      assert.match(String(err), /bad options/)
    }
  }
})

schema('limit defaults to 4096', async () => {
  const run = await runPlugin(maxTokens, {}, { body: {} })
  assert.is((run.ex.body as { max_tokens: number }).max_tokens, 4096)
})

schema.run()

const test = suite('plugin max-tokens: behaviour')

test('clamps a larger ask and says so in a header', async () => {
  const run = await runPlugin(maxTokens, { limit: 100 }, { body: { max_tokens: 500 } })
  assert.is(run.nextCalled, true)
  assert.is((run.ex.body as { max_tokens: number }).max_tokens, 100)
  assert.is(run.ex.headers.get('x-gateway-max-tokens'), '100')
  assert.equal(run.ex.state.maxTokens, { asked: 500, granted: 100 })
})

test('fills in an absent max_tokens', async () => {
  const run = await runPlugin(maxTokens, { limit: 64 }, { body: {} })
  assert.is((run.ex.body as { max_tokens: number }).max_tokens, 64)
})

test('leaves a smaller ask alone, without the header', async () => {
  const run = await runPlugin(maxTokens, { limit: 100 }, { body: { max_completion_tokens: 10 } })
  assert.is((run.ex.body as { max_completion_tokens: number }).max_completion_tokens, 10)
  assert.is(run.ex.headers.get('x-gateway-max-tokens'), undefined)
})

test('refuse mode answers 400 and never calls the next step', async () => {
  const run = await runPlugin(maxTokens, { limit: 100, mode: 'refuse' }, { body: { max_tokens: 101 } })
  assert.is(run.error?.status, 400)
  assert.is(run.error?.message, "max_tokens 101 is over this route's limit of 100")
  assert.is(run.nextCalled, false)
})

test.run()
