/**
 * openai-responses in isolation: the harness runs it before a fake chat step, so each test
 * shows what the steps after it receive (`ex.body`) and what the client gets back.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import responses from '../../../plugins/openai-responses/index.js'
import { makeKernel, runPlugin, setupPlugin, stateOf } from '../../../bin/testing/harness.js'
import { reply } from '../../../kernel/contract/reply.js'
import type { Exchange, Principal } from '../../../kernel/contract/exchange.js'

const alice: Principal = { keyId: 'alice', group: 'demo', legacy: false }
const bob: Principal = { keyId: 'bob', group: 'demo', legacy: false }
const completion = (content: string) => ({
  model: 'sim-8b',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
})
const answer = (content: string) => (ex: Exchange) => void (ex.reply = reply.json(completion(content)))

const schema = suite('plugin openai-responses: options')

schema('action is create (default), retrieve, delete or input-items; nothing else', async () => {
  for (const bad of [{ action: 'list' }, { extra: 1 }]) {
    try {
      await setupPlugin(responses, bad)
      assert.unreachable(`accepted ${JSON.stringify(bad)}`)
    } catch (err) {
      assert.match(String(err), /bad options/)
    }
  }
})

schema.run()

const test = suite('plugin openai-responses: behaviour')

test('create: the next steps get a chat body; the client gets a Response', async () => {
  let seen: unknown
  const run = await runPlugin(
    responses,
    {},
    {
      principal: alice,
      body: { model: 'sim-chat', input: 'hi', instructions: 'sys', max_output_tokens: 20 },
      next: (ex) => {
        seen = structuredClone(ex.body)
        ex.reply = reply.json(completion('Hello'))
      },
    },
  )
  assert.equal(seen, {
    model: 'sim-chat',
    messages: [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hi' },
    ],
    max_tokens: 20,
  })
  const body = (
    run.reply as {
      body: { object: string; id: string; output: { content: { text: string }[] }[]; usage: { total_tokens: number } }
    }
  ).body
  assert.is(body.object, 'response')
  assert.match(body.id, /^resp_[0-9a-f]{48}$/)
  assert.is(body.output[0]!.content[0]!.text, 'Hello')
  assert.is(body.usage.total_tokens, 9)
  assert.is(run.ex.state.responses?.id, body.id)
})

test('store (the default) keeps it for its key; store: false keeps nothing', async () => {
  const kernel = makeKernel()
  const kept = await runPlugin(responses, {}, { kernel, principal: alice, body: { input: 'hi' }, next: answer('one') })
  const id = (kept.reply as { body: { id: string } }).body.id
  const stored = await (await stateOf(responses, kernel)).get('alice', id)
  assert.equal(stored?.input, [
    { type: 'message', role: 'user', content: 'hi', id: id.replace('resp_', 'msg_') + '_i0' },
  ])
  assert.is(await (await stateOf(responses, kernel)).get('bob', id), undefined)
  const notKept = await runPlugin(
    responses,
    {},
    { kernel, principal: alice, body: { input: 'hi', store: false }, next: answer('two') },
  )
  assert.is(
    await (await stateOf(responses, kernel)).get('alice', (notKept.reply as { body: { id: string } }).body.id),
    undefined,
  )
})

test('previous_response_id: the stored input and output come first; another key gets 404', async () => {
  const kernel = makeKernel()
  const first = await runPlugin(
    responses,
    {},
    { kernel, principal: alice, body: { input: 'first' }, next: answer('one') },
  )
  const id = (first.reply as { body: { id: string } }).body.id
  let seen: { messages: unknown[] } | undefined
  await runPlugin(
    responses,
    {},
    {
      kernel,
      principal: alice,
      body: { input: 'second', previous_response_id: id },
      next: (ex) => {
        seen = structuredClone(ex.body) as { messages: unknown[] }
        ex.reply = reply.json(completion('two'))
      },
    },
  )
  assert.equal(seen?.messages, [
    { role: 'user', content: 'first' },
    { role: 'assistant', content: 'one' },
    { role: 'user', content: 'second' },
  ])
  const other = await runPlugin(
    responses,
    {},
    { kernel, principal: bob, body: { input: 'x', previous_response_id: id }, next: answer('no') },
  )
  assert.is(other.nextCalled, false)
  assert.is(other.error?.status, 404)
  assert.is(other.error?.message, `Previous response with id '${id}' not found.`)
})

test("item_reference: resolved from the key's stored responses; unknown ones are 404", async () => {
  const kernel = makeKernel()
  const first = await runPlugin(
    responses,
    {},
    { kernel, principal: alice, body: { input: 'first' }, next: answer('one') },
  )
  const output = (first.reply as { body: { output: { id: string }[] } }).body.output
  let seen: { messages: unknown[] } | undefined
  await runPlugin(
    responses,
    {},
    {
      kernel,
      principal: alice,
      body: {
        input: [
          { role: 'user', content: 'first' },
          { type: 'item_reference', id: output[0]!.id },
          { role: 'user', content: 'again' },
        ],
      },
      next: (ex) => {
        seen = structuredClone(ex.body) as { messages: unknown[] }
        ex.reply = reply.json(completion('two'))
      },
    },
  )
  assert.equal(seen?.messages, [
    { role: 'user', content: 'first' },
    { role: 'assistant', content: 'one' },
    { role: 'user', content: 'again' },
  ])
  const missing = await runPlugin(
    responses,
    {},
    { kernel, principal: bob, body: { input: [{ type: 'item_reference', id: output[0]!.id }] }, next: answer('no') },
  )
  assert.is(missing.error?.status, 404)
  assert.match(missing.error!.message, /^Item with id 'msg_/)
})

test('a bad input is a 400 in the openai error shape, before any later step runs', async () => {
  const run = await runPlugin(
    responses,
    {},
    { principal: alice, body: { input: 'x', tools: [{ type: 'web_search' }] }, next: answer('no') },
  )
  assert.is(run.nextCalled, false)
  assert.is(run.rendered?.status, 400)
  assert.equal(JSON.parse(run.rendered!.body), {
    error: {
      message: "tools[0]: tool type 'web_search' is not supported; only function tools are",
      type: 'gateway_error',
    },
  })
})

test("retrieve, input-items and delete answer from the key's own stored responses", async () => {
  const kernel = makeKernel()
  const made = await runPlugin(responses, {}, { kernel, principal: alice, body: { input: 'hi' }, next: answer('one') })
  const id = (made.reply as { body: { id: string } }).body.id
  const got = await runPlugin(
    responses,
    { action: 'retrieve' },
    { kernel, principal: alice, method: 'GET', params: { id } },
  )
  assert.is((got.reply as { body: { id: string } }).body.id, id)
  assert.is(got.nextCalled, false)
  const items = await runPlugin(
    responses,
    { action: 'input-items' },
    { kernel, principal: alice, method: 'GET', params: { id } },
  )
  assert.equal(
    (items.reply as { body: { object: string; data: { content: string }[]; has_more: boolean } }).body.data.map(
      (d) => d.content,
    ),
    ['hi'],
  )
  const foreign = await runPlugin(
    responses,
    { action: 'retrieve' },
    { kernel, principal: bob, method: 'GET', params: { id } },
  )
  assert.is(foreign.error?.status, 404)
  assert.is(foreign.error?.message, `Response with id '${id}' not found.`)
  assert.is(
    (await runPlugin(responses, { action: 'delete' }, { kernel, principal: bob, method: 'DELETE', params: { id } }))
      .error?.status,
    404,
  )
  const deleted = await runPlugin(
    responses,
    { action: 'delete' },
    { kernel, principal: alice, method: 'DELETE', params: { id } },
  )
  assert.equal((deleted.reply as { body: unknown }).body, { id, object: 'response', deleted: true })
  assert.is(
    (await runPlugin(responses, { action: 'retrieve' }, { kernel, principal: alice, method: 'GET', params: { id } }))
      .error?.status,
    404,
  )
})

test('a stream: chat chunks in, named Responses events out, the Response kept before it completes', async () => {
  const kernel = makeKernel()
  async function* chunks() {
    yield { model: 'sim-8b', choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] }
    yield { model: 'sim-8b', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }
    yield { model: 'sim-8b', choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } }
  }
  const run = await runPlugin(
    responses,
    {},
    {
      kernel,
      principal: alice,
      body: { input: 'hi', stream: true },
      next: (ex) => void (ex.reply = reply.events(chunks(), { terminator: '[DONE]' })),
    },
  )
  assert.is(run.reply?.kind, 'events')
  assert.is((run.reply as { named?: boolean }).named, true)
  assert.is((run.reply as { terminator?: string }).terminator, undefined, 'no [DONE]')
  const types = run.events!.map((e) => e.type)
  assert.is(types[0], 'response.created')
  assert.is(types[types.length - 1], 'response.completed')
  const id = (run.events![0]!.response as { id: string }).id
  assert.is(
    ((await (await stateOf(responses, kernel)).get('alice', id))?.response as { status: string } | undefined)?.status,
    'completed',
  )
})

test("a cut stream: response.failed, then the error is rethrown for the kernel's error event", async () => {
  async function* chunks() {
    yield { model: 'sim-8b', choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] }
    throw new (await import('../../../kernel/contract/errors.js')).GatewayError(
      502,
      'upstream stream ended before it was complete',
      { code: 'upstream_failed' },
    )
  }
  const run = await runPlugin(
    responses,
    {},
    { principal: alice, body: { input: 'hi', stream: true }, next: (ex) => void (ex.reply = reply.events(chunks())) },
  )
  assert.is(run.events![run.events!.length - 1]!.type, 'response.failed')
  assert.is(run.error?.status, 502)
  const errorEvent = (run.reply as { errorEvent?: (e: NonNullable<typeof run.error>) => Record<string, unknown> })
    .errorEvent!(run.error!)
  assert.is(errorEvent.type, 'error')
  assert.is(errorEvent.code, 'upstream_failed')
  assert.equal(errorEvent.error, {
    type: 'gateway_error',
    code: 'upstream_failed',
    message: 'upstream stream ended before it was complete',
    param: null,
  })
})

test.run()
