import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import plugin from '../../../plugins/anthropic-messages/index.js'
import { GatewayError } from '../../../kernel/contract/errors.js'
import { reply, SerializedEvent, type StreamItem } from '../../../kernel/contract/reply.js'
import { runPlugin, setupPlugin } from '../../../bin/testing/harness.js'

const test = suite('plugin anthropic-messages')

const request = {
  model: 'sim-chat-instruct',
  max_tokens: 50,
  system: 'Be brief.',
  messages: [{ role: 'user', content: 'Hi' }],
}
const completion = {
  choices: [{ message: { content: 'Hello' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 9, completion_tokens: 1 },
}

test('options: mode messages (default) or count_tokens; anything else is refused at load', async () => {
  await setupPlugin(plugin, {})
  await setupPlugin(plugin, { mode: 'count_tokens' })
  try {
    await setupPlugin(plugin, { mode: 'chat' })
    assert.unreachable()
  } catch (err) {
    assert.match((err as Error).message, /bad options/)
  }
})

test('the next steps see a chat-completions body; the JSON reply becomes a message', async () => {
  let seen: unknown
  const r = await runPlugin(
    plugin,
    {},
    {
      body: structuredClone(request),
      next: (ex) => {
        seen = ex.body
        ex.reply = reply.json(completion)
      },
    },
  )
  assert.equal(seen, {
    model: 'sim-chat-instruct',
    max_tokens: 50,
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ],
  })
  assert.is(r.reply?.kind, 'json')
  const body = (r.reply as { body: Record<string, unknown> }).body
  assert.is(body.type, 'message')
  assert.is(body.model, 'sim-chat-instruct')
  assert.equal(body.content, [{ type: 'text', text: 'Hello' }])
  assert.is(body.id, `msg_${r.ex.id.replace(/-/g, '')}`)
  assert.is(r.ex.headers.get('request-id'), r.ex.id)
})

test('a chat stream becomes named Messages events, serialized chunks included', async () => {
  async function* chunks(): AsyncGenerator<StreamItem> {
    yield new SerializedEvent(
      '{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}],"usage":{"prompt_tokens":9,"completion_tokens":0}}',
    )
    yield { choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] }
    yield { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }
  }
  const r = await runPlugin(
    plugin,
    {},
    {
      body: { ...structuredClone(request), stream: true },
      next: (ex) => void (ex.reply = reply.events(chunks(), { terminator: '[DONE]' })),
    },
  )
  assert.is(r.reply?.kind, 'events')
  const events = r.reply as { named?: boolean; terminator?: string }
  assert.is(events.named, true)
  assert.is(events.terminator, undefined, 'no [DONE] in this dialect')
  assert.equal(
    r.events?.map((e) => e.type),
    [
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ],
  )
  assert.is(r.outcome?.kind, 'done')
})

test("a failing stream: the events so far, then the error, written as Anthropic's error event", async () => {
  async function* chunks(): AsyncGenerator<StreamItem> {
    yield { choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] }
    throw new GatewayError(502, 'upstream stream ended before it was complete')
  }
  const r = await runPlugin(
    plugin,
    {},
    { body: { ...structuredClone(request), stream: true }, next: (ex) => void (ex.reply = reply.events(chunks())) },
  )
  assert.equal(
    r.events?.map((e) => e.type),
    ['message_start', 'content_block_start', 'content_block_delta'],
  )
  assert.is(r.error?.status, 502)
  const errorEvent = (r.reply as { errorEvent?: (e: GatewayError) => unknown }).errorEvent!
  assert.equal(errorEvent(r.error!), {
    type: 'error',
    error: { type: 'api_error', message: 'upstream stream ended before it was complete' },
  })
})

test('a bad block is a 400 in the anthropic style, and nothing downstream runs', async () => {
  const r = await runPlugin(
    plugin,
    {},
    { errors: 'anthropic', body: { ...request, messages: [{ role: 'user', content: [{ type: 'document' }] }] } },
  )
  assert.is(r.nextCalled, false)
  assert.is(r.error?.status, 400)
  assert.is(JSON.parse(r.rendered!.body as string).error.type, 'invalid_request_error')
})

test('count_tokens mode: the body is translated without generation fields, and the reply passes as is', async () => {
  let seen: Record<string, unknown> = {}
  const r = await runPlugin(
    plugin,
    { mode: 'count_tokens' },
    {
      body: { model: 'sim-chat-instruct', messages: [{ role: 'user', content: 'Hi' }] },
      next: (ex) => {
        seen = ex.body as Record<string, unknown>
        ex.reply = reply.json({ input_tokens: 5 })
      },
    },
  )
  assert.equal(Object.keys(seen).sort(), ['messages', 'model'])
  assert.equal((r.reply as { body: unknown }).body, { input_tokens: 5 })
})

test.run()
