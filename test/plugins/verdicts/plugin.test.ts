import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import verdicts from '../../../plugins/verdicts/index.js'
import { GatewayError } from '../../../kernel/contract/errors.js'
import { runPlugin } from '../../../bin/testing/harness.js'
import { completion, fakeChat, lastMessage, type Answer } from './fake-chat.js'

const test = suite('verdicts: plugin behaviour against a fake chat route')
const demo = { keyId: 'demo', group: 'demo', legacy: false }

const three = {
  polite: { type: 'boolean', instructions: 'Is the message polite?' },
  kind: {
    type: 'choice',
    instructions: 'What kind of message is it?',
    criteria: { greeting: 'says hello', complaint: null, question: 'asks something' },
  },
  warmth: { type: 'score', instructions: 'How warm is it?', criteria: ['cold', 'neutral', 'warm', 'very warm'] },
}

/** Answers per question kind, read from the question's label line. */
function byLabels(text: string): Answer {
  if (text.includes('labels: Yes, No'))
    return completion({
      top: [
        ['Yes', 0.7],
        [' yes', 0.1],
        ['No', 0.15],
        ['The', 0.01],
      ],
    })
  if (text.includes('labels: A, B, C.'))
    return completion({
      top: [
        ['C', 0.5],
        ['A', 0.3],
        ['Answer', 0.1],
      ],
    })
  return completion({
    top: [
      ['3', 0.6],
      ['4', 0.2],
      ['2', 0.15],
    ],
  })
}

const body = (extra: Record<string, unknown> = {}) => ({
  state: 'Hello! Could you help me?',
  questions: three,
  ...extra,
})

test('each question is one call of chat-internal: one token, greedy, top 20 logprobs, with the caller as principal', async () => {
  const chat = fakeChat((b) => byLabels(lastMessage({ route: '', body: b, options: undefined })))
  const run = await runPlugin(verdicts, {}, { kernel: chat.kernel, principal: demo, body: body() })
  assert.is(run.error, undefined)
  assert.is(chat.calls.length, 3)
  for (const call of chat.calls) {
    assert.is(call.route, 'chat-internal')
    assert.is(call.body.model, 'sim-vision', 'the deployment default model')
    assert.is(call.body.max_tokens, 1)
    assert.is(call.body.temperature, 0)
    assert.is(call.body.logprobs, true)
    assert.is(call.body.top_logprobs, 20)
    assert.equal(call.options?.principal, demo)
    assert.is(call.options?.parentId, run.ex.id)
  }
})

test('the prompt: shared judge instructions, state and images first, the question last', async () => {
  const chat = fakeChat((b) => byLabels(lastMessage({ route: '', body: b, options: undefined })))
  const image = 'data:image/png;base64,iVBORw0KGgo='
  await runPlugin(
    verdicts,
    {},
    { kernel: chat.kernel, principal: demo, body: body({ state: { order: 17, items: ['tea'] }, images: [image] }) },
  )
  const prefixes = chat.calls.map((c) => JSON.stringify((c.body.messages as unknown[]).slice(0, -1)))
  assert.is(new Set(prefixes).size, 1, 'every question shares the same prefix, byte for byte')
  const [system, shared] = chat.calls[0]!.body.messages as Array<{ role: string; content: unknown }>
  assert.is(system!.role, 'system')
  const parts = shared!.content as Array<{ type: string; text?: string; image_url?: { url: string } }>
  assert.ok(
    parts[0]!.text!.includes(JSON.stringify({ order: 17, items: ['tea'] }, null, 2)),
    'objects are rendered as indented JSON',
  )
  assert.equal(parts[1], { type: 'image_url', image_url: { url: image } })
  const questions = chat.calls.map(lastMessage).sort()
  assert.ok(
    questions.some(
      (q) =>
        q.startsWith('Question: Is the message polite?') &&
        q.endsWith('Answer with exactly one of these labels: Yes, No.'),
    ),
  )
  assert.ok(
    questions.some(
      (q) =>
        q.includes('A: greeting (says hello)\nB: complaint\nC: question (asks something)') &&
        q.endsWith('labels: A, B, C.'),
    ),
  )
  assert.ok(
    questions.some(
      (q) => q.includes('1: cold\n2: neutral\n3: warm\n4: very warm') && q.endsWith('labels: 1, 2, 3, 4.'),
    ),
  )
})

test('the response: model, a verdict per id shaped by type, usage summed over the calls', async () => {
  const chat = fakeChat((b) => {
    const answer = byLabels(lastMessage({ route: '', body: b, options: undefined })) as Record<string, unknown>
    return {
      ...answer,
      usage: {
        prompt_tokens: 120,
        completion_tokens: 1,
        total_tokens: 121,
        prompt_tokens_details: { cached_tokens: 96 },
      },
    }
  })
  const run = await runPlugin(verdicts, {}, { kernel: chat.kernel, principal: demo, body: body() })
  const out = (
    run.reply as {
      body: { model: string; verdicts: Record<string, Record<string, unknown>>; usage: Record<string, unknown> }
    }
  ).body
  assert.is(out.model, 'sim-vision')
  const polite = out.verdicts.polite!
  assert.is(polite.type, 'boolean')
  assert.is(polite.value, true)
  assert.equal(Object.keys(polite.probabilities as object), ['false', 'true'])
  const p = polite.probabilities as { false: number; true: number }
  assert.ok(Math.abs(p.true - 0.8 / 0.95) < 1e-12, 'Yes and " yes" are one answer')
  const kind = out.verdicts.kind!
  assert.is(kind.value, 'question')
  assert.equal(Object.keys(kind.probabilities as object), ['greeting', 'complaint', 'question'])
  assert.is((kind.probabilities as Record<string, number>).complaint, 0, 'B was not among the top tokens: exactly 0')
  const warmth = out.verdicts.warmth!
  assert.is(warmth.value, 3, 'levels count from 1')
  const levels = warmth.probabilities as number[]
  assert.is(levels.length, 4)
  assert.is(levels[0], 0)
  assert.ok(Math.abs((warmth.expected_value as number) - (2 * 0.15 + 3 * 0.6 + 4 * 0.2) / 0.95) < 1e-12)
  assert.is(polite.expected_value, undefined, 'only scores have an expected value')
  for (const v of Object.values(out.verdicts)) {
    const ps = Array.isArray(v.probabilities) ? v.probabilities : Object.values(v.probabilities as object)
    assert.ok(Math.abs(ps.reduce((s: number, x: number) => s + x, 0) - 1) < 1e-12, 'sums to 1')
    assert.ok((v.confidence as number) > 0 && (v.confidence as number) < 1)
  }
  assert.equal(out.usage, {
    prompt_tokens: 360,
    completion_tokens: 3,
    total_tokens: 363,
    prompt_tokens_details: { cached_tokens: 288 },
  })
  assert.equal(run.ex.state.verdicts, { model: 'sim-vision', questions: 3, calls: 3 })
})

test('questions run concurrently: every call is in flight before any is answered', async () => {
  let release!: () => void
  const allArrived = new Promise<void>((resolve) => (release = resolve))
  let arrived = 0
  const chat = fakeChat(async (b) => {
    if (++arrived === 3) release()
    await allArrived
    return byLabels(lastMessage({ route: '', body: b, options: undefined }))
  })
  const run = await runPlugin(verdicts, {}, { kernel: chat.kernel, principal: demo, body: body() })
  assert.is(run.reply?.status, 200, 'a sequential plugin would wait forever here')
})

test('a family is answered by its none member, asked for through the family', async () => {
  const chat = fakeChat(() => completion({ top: [['No', 0.9]], model: 'sim-instruct-8b' }), {
    'x-gateway-model-variant': 'sim-chat',
  })
  const run = await runPlugin(
    verdicts,
    {},
    { kernel: chat.kernel, principal: demo, body: { model: 'sim-chat', state: 's', questions: { a: three.polite } } },
  )
  assert.is(chat.calls[0]!.body.model, 'sim-chat')
  assert.is(chat.calls[0]!.body.reasoning_effort, 'none')
  assert.is((run.reply as { body: { model: string } }).body.model, 'sim-chat-instruct')
  assert.is(run.ex.headers.get('x-gateway-model-variant'), 'sim-chat')
})

test('auto: a vision model when images are sent, any chat model otherwise', async () => {
  const served: Record<string, string> = { 'sim-vision': 'sim-vision-7b', 'sim-chat-instruct': 'sim-instruct-8b' }
  const chat = fakeChat((b) => completion({ top: [['Yes', 0.9]], model: served[b.model as string] }))
  const withImages = await runPlugin(
    verdicts,
    {},
    {
      kernel: chat.kernel,
      principal: demo,
      body: { model: 'auto', images: ['data:image/png;base64,AAAA'], questions: { a: three.polite } },
    },
  )
  assert.is(chat.calls[0]!.body.model, 'sim-vision')
  assert.is((withImages.reply as { body: { model: string } }).body.model, 'sim-vision')
  const textOnly = await runPlugin(
    verdicts,
    {},
    { kernel: chat.kernel, principal: demo, body: { model: 'auto', state: 'words', questions: { a: three.polite } } },
  )
  assert.is(chat.calls[1]!.body.model, 'sim-chat-instruct', 'the first capable model of models.yaml')
  assert.is((textOnly.reply as { body: { model: string } }).body.model, 'sim-chat-instruct')
})

test('the response names the model that answered, mapped back from the server name', async () => {
  // A retired model with on_retired: replace is answered by its replacement's server.
  const chat = fakeChat(() => completion({ top: [['Yes', 0.9]], model: 'sim-instruct-8b' }))
  const run = await runPlugin(
    verdicts,
    {},
    {
      kernel: chat.kernel,
      principal: demo,
      body: { model: 'sim-legacy-chat', state: 's', questions: { a: three.polite } },
    },
  )
  assert.is(chat.calls[0]!.body.model, 'sim-legacy-chat')
  assert.is((run.reply as { body: { model: string } }).body.model, 'sim-chat-instruct')
  const byServerName = await runPlugin(
    verdicts,
    {},
    {
      kernel: chat.kernel,
      principal: demo,
      body: { model: 'sim-instruct-8b', state: 's', questions: { a: three.polite } },
    },
  )
  assert.is((byServerName.reply as { body: { model: string } }).body.model, 'sim-chat-instruct')
})

test('a thinking first token is retried once with thinking skipped; usage counts both calls', async () => {
  const chat = fakeChat((_b, i) =>
    i === 0
      ? completion({ reasoning: 'Hmm', model: 'sim-thinker-8b' })
      : completion({
          top: [
            ['No', 0.6],
            ['Yes', 0.4],
          ],
          model: 'sim-thinker-8b',
        }),
  )
  const run = await runPlugin(
    verdicts,
    {},
    {
      kernel: chat.kernel,
      principal: demo,
      body: { model: 'sim-chat-thinking', state: 's', questions: { a: three.polite } },
    },
  )
  assert.is(chat.calls.length, 2)
  assert.is(chat.calls[0]!.body.chat_template_kwargs, undefined)
  assert.equal(
    chat.calls[1]!.body.chat_template_kwargs,
    { enable_thinking: false },
    'no none level: the chat-template switch',
  )
  const out = (run.reply as { body: { model: string; usage: { prompt_tokens: number; completion_tokens: number } } })
    .body
  assert.is(out.model, 'sim-chat-thinking')
  assert.is(out.usage.prompt_tokens, 200)
  assert.is(out.usage.completion_tokens, 2)
  assert.is(run.ex.state.verdicts?.calls, 2)
})

test('a model that maps a none level is retried at none; a <think> first token counts as thinking', async () => {
  const chat = fakeChat((_b, i) =>
    i === 0 ? completion({ top: [['<think>', 0.99]] }) : completion({ top: [['Yes', 0.9]] }),
  )
  const run = await runPlugin(
    verdicts,
    {},
    { kernel: chat.kernel, principal: demo, body: { model: 'sim-vision', state: 's', questions: { a: three.polite } } },
  )
  assert.is(run.reply?.status, 200)
  assert.is(chat.calls[1]!.body.reasoning_effort, 'none')
  assert.is(chat.calls[1]!.body.chat_template_kwargs, undefined)
})

async function failing(
  answer: (b: Record<string, unknown>, i: number) => Answer | Promise<Answer>,
  model = 'sim-vision',
) {
  const chat = fakeChat(answer)
  const run = await runPlugin(
    verdicts,
    {},
    { kernel: chat.kernel, principal: demo, body: { model, state: 's', questions: three } },
  )
  return { run, calls: chat.calls }
}

test('502 "backend returned no logprobs", and no partial result', async () => {
  const { run } = await failing((b) =>
    lastMessage({ route: '', body: b, options: undefined }).includes('How warm')
      ? completion({ noLogprobs: true, top: [['3', 1]] })
      : completion({
          top: [
            ['Yes', 0.9],
            ['A', 0.5],
          ],
        }),
  )
  assert.is(run.error?.status, 502)
  assert.is(run.error?.message, 'backend returned no logprobs')
  assert.is(run.reply, undefined)
})

test('502 "model produced no recognizable answer label": no label in the top tokens, or thinking after the retry', async () => {
  const none = await failing(() =>
    completion({
      top: [
        ['The', 0.6],
        ['Based', 0.2],
      ],
    }),
  )
  assert.is(none.run.error?.status, 502)
  assert.is(none.run.error?.message, 'model produced no recognizable answer label')
  const thinker = await failing(() => completion({ reasoning: 'still thinking' }), 'sim-chat-thinking')
  assert.is(thinker.run.error?.message, 'model produced no recognizable answer label')
  assert.is(thinker.calls.length, 6, 'each question was tried twice, no more')
})

test("a model server's 422 for media it could not fetch: 502 with the spec's message", async () => {
  const { run } = await failing(
    () => new GatewayError(422, 'Failed to fetch media from URL', { code: 'upstream_error' }),
  )
  assert.is(run.error?.status, 502)
  assert.is(run.error?.message, 'upstream returned 422 failing to fetch media from URL')
})

test("other model-server errors become 502; the gateway's own refusals and a context overflow keep their status", async () => {
  const server = await failing(
    () => new GatewayError(503, 'The server is overloaded or not ready yet.', { code: 'upstream_error' }),
  )
  assert.is(server.run.error?.status, 502)
  assert.is(server.run.error?.message, 'upstream returned 503: The server is overloaded or not ready yet.')
  const overflow = await failing(
    () =>
      new GatewayError(400, "This model's maximum context length is 4096 tokens. However, …", {
        code: 'upstream_error',
      }),
  )
  assert.is(overflow.run.error?.status, 400)
  const forbidden = await failing(() => new GatewayError(403, 'model not permitted for tenant'))
  assert.is(forbidden.run.error?.status, 403)
  assert.is(forbidden.run.error?.message, 'model not permitted for tenant')
  const unknown = await failing(() => new GatewayError(404, 'model nope is not registered'), 'nope')
  assert.is(unknown.run.error?.status, 404)
})

test('the first failure cancels the questions still running', async () => {
  const signals: AbortSignal[] = []
  const chat = fakeChat(async (_b, i) => {
    if (i === 0) return completion({ noLogprobs: true })
    const signal = chat.calls[i]!.options!.signal!
    signals.push(signal)
    await new Promise<void>((resolve) =>
      signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve()),
    )
    return new GatewayError(499, 'aborted')
  })
  const run = await runPlugin(verdicts, {}, { kernel: chat.kernel, principal: demo, body: body() })
  assert.is(run.error?.message, 'backend returned no logprobs')
  assert.is(signals.length, 2)
  assert.ok(
    signals.every((s) => s.aborted),
    'the other calls were aborted',
  )
})

test.run()
