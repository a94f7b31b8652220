/**
 * The tool boons' rounds, alone (no server): the model is a fake route that answers by script.
 * The bound on rounds, a reply mixing a boon's call with a client's, arguments the model got
 * wrong, and a streamed answer with the image appended before the finish and the usage summed.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import boons from '../../../plugins/boons/index.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { reply, type StreamEvent } from '../../../kernel/contract/reply.js'
import { Usage } from '../../../kernel/contract/usage.js'

const test = suite('plugin boons (tool rounds)')
const principal = { keyId: 'demo', group: 'demo', legacy: false }

type Body = {
  model: string
  messages: { role: string; content?: unknown; tool_calls?: unknown }[]
  tools?: { function: { name: string } }[]
  stream?: boolean
  max_results?: number
  query?: string
  prompt?: string
}
type Script = (body: Body) => unknown

const searchCall = (id: string, args = '{"query":"tides"}') => ({
  id,
  type: 'function',
  function: { name: 'web_search', arguments: args },
})
const answer = (content: string, usage = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 }) => ({
  id: 'c',
  object: 'chat.completion',
  model: 'sim-chat-tools',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage,
})
const calling = (...tool_calls: unknown[]) => ({
  id: 'c',
  object: 'chat.completion',
  model: 'sim-chat-tools',
  choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls }, finish_reason: 'tool_calls' }],
  usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
})

function setup(script: Script) {
  const calls: { route: string; body: Body }[] = []
  const kernel = makeKernel({
    call: async (route, body) => {
      const b = body as Body
      calls.push({ route, body: structuredClone(b) })
      if (route === 'web-search-internal')
        return {
          reply: reply.json({
            provider: 'local',
            provider_description: 'not the web',
            results: [{ title: 't', url: 'kb://x', content: 'c', score: 1 }],
          }),
          headers: new Map(),
          usage: new Usage(undefined),
        }
      if (route === 'images-generations')
        return {
          reply: reply.json({ data: [{ b64_json: 'iVBORw0KGgo=' }], output_format: 'png' }),
          headers: new Map(),
          usage: new Usage(undefined),
        }
      const out = script(b)
      if (b.stream)
        return {
          reply: reply.events(
            (async function* () {
              yield* out as StreamEvent[]
            })(),
            { terminator: '[DONE]' },
          ),
          headers: new Map([['x-gateway-reasoning-effort', 'none']]),
          usage: new Usage(undefined),
        }
      return {
        reply: reply.json(out),
        headers: new Map([['x-gateway-reasoning-effort', 'none']]),
        usage: new Usage(undefined),
      }
    },
  })
  const run = (body: object, options: object = {}, headers: Record<string, string> = {}) =>
    runPlugin(boons, options, {
      kernel,
      principal,
      headers,
      state: { model: { requested: 'sim-chat-tools', model: kernel.catalog.model('sim-chat-tools')! } },
      body: { model: 'sim-chat-tools', ...body },
    })
  return { calls, run }
}

const user = (content: string) => ({ messages: [{ role: 'user', content }] })
const offered = (b: Body) => (b.tools ?? []).map((t) => t.function.name)

test('a model that keeps searching is asked max_rounds times with the tool, then once without it', async () => {
  const { calls, run } = setup((b) =>
    offered(b).includes('web_search') ? calling(searchCall(`call_${b.messages.length}`)) : answer('done'),
  )
  const r = await run(user('search'), { max_rounds: 2 })
  const rounds = calls.filter((c) => c.route === 'chat-internal')
  assert.is(rounds.length, 3)
  assert.equal(
    rounds.map((c) => offered(c.body)),
    [['web_search', 'generate_image'], ['web_search', 'generate_image'], []],
  )
  assert.is(calls.filter((c) => c.route === 'web-search-internal').length, 2)
  assert.equal(
    rounds[2]!.body.messages.map((m) => m.role),
    ['user', 'assistant', 'tool', 'assistant', 'tool'],
  )
  const body = (r.reply as { body: ReturnType<typeof answer> }).body
  assert.is(body.choices[0]!.message.content, 'done')
  assert.equal(
    body.usage,
    { prompt_tokens: 20, completion_tokens: 4, total_tokens: 24, prompt_tokens_details: { cached_tokens: 0 } },
    'usage summed over three rounds',
  )
  assert.is(r.ex.headers.get('x-gateway-boons'), 'web_search')
  assert.is(r.ex.headers.get('x-gateway-reasoning-effort'), 'none', "the answering round's headers")
  assert.is(r.nextCalled, false, 'the rounds answered the request')
})

test("a reply that calls a client's tool goes to the client, without the boon's call, and no search runs", async () => {
  const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }
  const client = { id: 'call_w', type: 'function', function: { name: 'get_weather', arguments: '{}' } }
  const { calls, run } = setup(() => calling(searchCall('call_s'), client))
  const r = await run({ ...user('x'), tools: [weather] })
  assert.equal(
    offered(calls[0]!.body),
    ['get_weather', 'web_search', 'generate_image'],
    "the client's tool first, then the boons'",
  )
  assert.is(calls.filter((c) => c.route === 'web-search-internal').length, 0)
  const choice = (r.reply as { body: { choices: { message: { tool_calls: unknown[] }; finish_reason: string }[] } })
    .body.choices[0]!
  assert.equal(choice.message.tool_calls, [client])
  assert.is(choice.finish_reason, 'tool_calls')
  assert.is(r.ex.headers.get('x-gateway-boons'), undefined)
})

test('a client tool of the same name wins; tool_choice none and x-gateway-boons: off offer nothing and go to the next step', async () => {
  const own = { type: 'function', function: { name: 'web_search', parameters: { type: 'object' } } }
  const { calls, run } = setup(() => answer('x'))
  await run({ ...user('x'), tools: [own] })
  assert.equal(offered(calls[0]!.body), ['web_search', 'generate_image'], "one web_search: the client's")
  calls.length = 0
  const none = await run({ ...user('x'), tool_choice: 'none' })
  assert.is(none.nextCalled, true)
  const off = await run(user('search'), {}, { 'x-gateway-boons': 'off' })
  assert.is(off.nextCalled, true)
  assert.is(off.ex.headers.get('x-gateway-boons'), undefined)
  assert.is(calls.length, 0)
})

test('arguments the model got wrong become an error tool message; no search runs; the model answers', async () => {
  const { calls, run } = setup((b) =>
    b.messages.length === 1 ? calling(searchCall('call_1', '{"query":')) : answer('sorry'),
  )
  const r = await run(user('search'))
  assert.is(calls.filter((c) => c.route === 'web-search-internal').length, 0)
  const last = calls.filter((c) => c.route === 'chat-internal')[1]!.body.messages.at(-1)!
  assert.equal(last, {
    role: 'tool',
    tool_call_id: 'call_1',
    content: '{"error":"web_search needs a non-empty query"}',
  })
  assert.is((r.reply as { body: ReturnType<typeof answer> }).body.choices[0]!.message.content, 'sorry')
  assert.is(r.ex.headers.get('x-gateway-boons'), 'web_search', 'the boon acted: it answered the call')
})

type Ch = { choices: { delta?: { content?: string; tool_calls?: unknown }; finish_reason?: string | null }[] }
const chunk = (delta: object, finish: string | null = null): StreamEvent => ({
  id: 's',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'sim-chat-tools',
  choices: [{ index: 0, delta, finish_reason: finish }],
})
const usageChunk = (p: number, c: number): StreamEvent => ({
  id: 's',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'sim-chat-tools',
  choices: [],
  usage: { prompt_tokens: p, completion_tokens: c, total_tokens: p + c },
})

test('streamed: the drawing round is not forwarded; the answer flows, the image comes before the finish, usage is summed', async () => {
  const { calls, run } = setup((b) =>
    b.messages.length === 1
      ? [
          chunk({ role: 'assistant', content: '' }),
          chunk({
            tool_calls: [
              { index: 0, id: 'call_i', type: 'function', function: { name: 'generate_image', arguments: '' } },
            ],
          }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"prompt":"a [heron]"}' } }] }),
          chunk({}, 'tool_calls'),
          usageChunk(7, 3),
        ]
      : [
          chunk({ role: 'assistant', content: '' }),
          chunk({ content: 'Here' }),
          chunk({ content: ' it is.' }),
          chunk({}, 'stop'),
          usageChunk(20, 4),
        ],
  )
  const r = await run({ ...user('draw a heron'), stream: true, stream_options: { include_usage: true } })
  assert.is(r.ex.headers.get('x-gateway-boons'), 'image_generation')
  assert.equal(calls.find((c) => c.route === 'images-generations')!.body.prompt, 'a [heron]')
  const events = r.events!
  const deltas = events.map((e) => (e as Ch).choices[0]?.delta)
  assert.ok(
    deltas.every((d) => d?.tool_calls === undefined),
    'no boon tool-call delta reaches the client',
  )
  const text = deltas.map((d) => d?.content ?? '').join('')
  assert.is(text, 'Here it is.\n\n![a heron](data:image/png;base64,iVBORw0KGgo=)')
  const finishAt = events.findIndex((e) => (e as Ch).choices[0]?.finish_reason === 'stop')
  assert.is(finishAt, events.length - 2, 'the finish, then the usage')
  assert.equal((events.at(-1) as { usage: unknown }).usage, {
    prompt_tokens: 27,
    completion_tokens: 7,
    total_tokens: 34,
    prompt_tokens_details: { cached_tokens: 0 },
  })
})

test('streamed without include_usage: no usage chunk reaches the client', async () => {
  const { run } = setup(() => [
    chunk({ role: 'assistant', content: '' }),
    chunk({ content: 'Hi' }),
    chunk({}, 'stop'),
    usageChunk(3, 1),
  ])
  const r = await run({ ...user('hello'), stream: true })
  assert.ok(r.events!.every((e) => !('usage' in e)))
  assert.is(r.ex.headers.get('x-gateway-boons'), undefined)
})

test.run()
