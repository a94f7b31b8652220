/**
 * fair-queue on the real gateway: what its service estimates learned (how real prompt tokens
 * compare with the byte-based estimate, how long replies run) is the plugin's state, opened once
 * per process, so a hot reload neither forgets it nor starts a second one.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fairQueue from '../../../plugins/fair-queue/index.js'
import { startTestGateway } from '../../support/gateway.js'

const test = suite('plugin fair-queue: a hot reload keeps the state')

test('the service estimate learned before a reload is the one the new pipelines charge by, and go on teaching', async () => {
  const gw = await startTestGateway()
  try {
    const chat = () =>
      gw.openai().chat.completions.create({
        model: 'sim-chat-instruct',
        messages: [{ role: 'user', content: 'Tell me about queues.' }],
        max_tokens: 8,
      })
    await chat()
    const pool = gw.generation().catalog.model('sim-chat-instruct')!.backend
    const state = await gw.plugins.get(fairQueue)!
    const learned = state.estimate('chat', pool).learned()
    assert.is(learned.replies, 1, "the reply's usage report taught the chat route's estimate")

    assert.ok(await gw.reload())
    assert.is(await gw.plugins.get(fairQueue), state, 'the queues and estimates were not opened again')
    assert.equal(state.estimate('chat', pool).learned(), learned, 'what was learned is kept')

    await chat()
    assert.is(state.estimate('chat', pool).learned().replies, 2, 'the reloaded route learns into the same estimate')
  } finally {
    await gw.close()
  }
})

test.run()
