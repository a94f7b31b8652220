/**
 * query-compare alone, in the harness, with a fake answer route: the options' schema, every
 * model asked at once with a streamed chat request under the project's key, deltas tagged by
 * model, one summary each with its usage at the model's prices, the total, a failing model
 * reported in its own summary, and the request's rules (400s).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import queryCompare from '../../../plugins/query-compare/index.js'
import { makeKernel, runPlugin, setupPlugin } from '../../../bin/testing/harness.js'
import { reply, type StreamEvent } from '../../../kernel/contract/reply.js'
import { GatewayError } from '../../../kernel/contract/errors.js'
import { Usage } from '../../../kernel/contract/usage.js'
import type { CallOptions, CallResult } from '../../../kernel/contract/kernel.js'
import type { Project, ProjectToken } from '../../../domains/query/projects.js'

const test = suite('plugin: query-compare')

const project: Project = {
  id: 'demo',
  keyId: 'demo',
  defaults: { model_params: { system_prompt: 'Be brief.', temperature: 0.3 } },
  compareModels: ['sim-chat-thinking', 'sim-vision'],
  source: 'config',
}
const service: ProjectToken = { id: 't', projectId: 'demo', kind: 'service', source: 'config' }
const developer: ProjectToken = { ...service, kind: 'developer' }
const principal = { keyId: 'demo', group: 'demo', legacy: false }
const body = {
  action: 'query_compare',
  query: 'Which is best?',
  model_provider: 'gateway',
  model_name: 'sim-chat-instruct',
}

/** A fake answer route: each model streams its name in two pieces and reports 10 in, 2 out. */
type Call = { route: string; body: Record<string, unknown>; options?: CallOptions }

function answerRoute(calls: Call[], failing?: string) {
  return async (route: string, b: unknown, options?: CallOptions): Promise<CallResult> => {
    const chat = b as Record<string, unknown>
    // The prompt's parts, counted once, as the tokenize route answers.
    if (route === 'tokenize-internal')
      return {
        reply: reply.json({ counts: { user_query: 4, system_prompt: 3 }, method: 'tokenizer' }),
        headers: new Map(),
        usage: new Usage(undefined),
      }
    calls.push({ route, body: chat, options })
    const model = chat.model as string
    if (model === failing) throw new GatewayError(503, 'The server is overloaded or not ready yet.')
    const usage = new Usage(undefined)
    async function* chunks(): AsyncGenerator<StreamEvent> {
      yield { choices: [{ delta: { content: `${model} ` } }] }
      yield { choices: [{ delta: { content: 'says hi' }, finish_reason: 'stop' }] }
      usage.model = model
      usage.report({ inputTokens: 10, outputTokens: 2 })
      yield { choices: [], usage: { prompt_tokens: 10, completion_tokens: 2 } }
    }
    return { reply: reply.events(chunks()), headers: new Map(), usage }
  }
}

test('options: max_models is bounded, unknown options are refused', async () => {
  await setupPlugin(queryCompare, { max_models: 3 })
  for (const bad of [{ max_models: 0 }, { max_models: 17 }, { surprise: 1 }]) {
    await setupPlugin(queryCompare, bad).then(
      () => assert.unreachable(JSON.stringify(bad)),
      (err: Error) => assert.match(err.message, /bad options/),
    )
  }
})

test('every model answers at once, streamed under the project key; deltas are tagged, summaries priced, then the total', async () => {
  const calls: Call[] = []
  const kernel = makeKernel({ call: answerRoute(calls) })
  const run = await runPlugin(
    queryCompare,
    {},
    { kernel, body, principal, state: { queryAuth: { project, token: service } }, transport: 'ws' },
  )
  assert.is(run.error, undefined, run.error?.message)
  const models = ['sim-chat-instruct', 'sim-chat-thinking', 'sim-vision']
  assert.equal(
    calls.map((c) => c.body.model),
    models,
  )
  for (const c of calls) {
    assert.is(c.route, 'query-chat')
    assert.is(c.body.stream, true)
    assert.is(c.body.temperature, 0.3)
    assert.equal(c.options?.principal, principal)
    // One prompt for all: the project's system prompt, then the question.
    const messages = c.body.messages as { role: string; content: string }[]
    assert.ok(
      messages[0]!.role === 'system' && messages[0]!.content.startsWith('Be brief.'),
      JSON.stringify(messages[0]),
    )
    assert.equal(messages, calls[0]!.body.messages)
  }
  const events = run.events!
  const deltas = events.filter((e) => e.type === 'compare.delta')
  assert.is(deltas.length, 6)
  for (const m of models)
    assert.is(
      deltas
        .filter((d) => d.model === m)
        .map((d) => d.delta)
        .join(''),
      `${m} says hi`,
    )
  const summaries = events.filter((e) => e.type === 'compare.summary') as {
    model: string
    answer: string
    usage_metric: { input_token_count: number; output_token_count: number; total_token_cost: number }
    latency_ms: number
    time_to_first_token_ms: number
  }[]
  assert.equal(summaries.map((s) => s.model).sort(), [...models].sort())
  for (const s of summaries) {
    assert.is(s.answer, `${s.model} says hi`)
    assert.is(s.usage_metric.input_token_count, 10)
    assert.is(s.usage_metric.output_token_count, 2)
    assert.is(
      (s.usage_metric as unknown as { input_token_details: { user_query: number } }).input_token_details.user_query,
      4,
      'the parts as the tokenizer counted them',
    )
    assert.ok(s.latency_ms >= s.time_to_first_token_ms)
  }
  const done = events.at(-1) as {
    type: string
    response: {
      file: string
      response: {
        response: { model: string }[]
        metadata: { models: string[]; usage_metric: { total_token_count: number }; sources: object }
      }
    }
  }
  assert.is(done.type, 'compare.done')
  assert.is(done.response.file, 'query_compare')
  assert.equal(done.response.response.metadata.models, models)
  assert.is(done.response.response.metadata.usage_metric.total_token_count, 36)
  // No search ran: no sources (a prototype-free object, as JSON sends it: `{}`).
  assert.equal(Object.keys(done.response.response.metadata.sources), [])
  assert.equal(
    done.response.response.response.map((s) => s.model),
    models,
  )
})

test('a model that fails is reported in its summary; the others answer', async () => {
  const calls: Call[] = []
  const kernel = makeKernel({ call: answerRoute(calls, 'sim-vision') })
  const run = await runPlugin(
    queryCompare,
    {},
    { kernel, body, principal, state: { queryAuth: { project, token: service } } },
  )
  assert.is(run.error, undefined)
  const failed = run.events!.find((e) => e.type === 'compare.summary' && e.model === 'sim-vision') as {
    error: { status: number; message: string }
  }
  assert.equal(failed.error, {
    status: 503,
    type: 'unavailable',
    message: 'The server is overloaded or not ready yet.',
  })
  assert.is(run.events!.filter((e) => e.type === 'compare.summary' && e.answer).length, 2)
  assert.is(run.events!.at(-1)!.type, 'compare.done')
})

test('max_models keeps the requested model first; a model named twice is asked once', async () => {
  const calls: Call[] = []
  const kernel = makeKernel({ call: answerRoute(calls) })
  await runPlugin(
    queryCompare,
    { max_models: 2 },
    {
      kernel,
      body: { ...body, model_name: 'sim-vision' },
      principal,
      state: { queryAuth: { project, token: service } },
    },
  )
  assert.equal(
    calls.map((c) => c.body.model),
    ['sim-vision', 'sim-chat-thinking'],
  )
})

test('rules: a custom template needs {data} and {query}; search needs a collection (named with a developer token); unknown providers', async () => {
  const kernel = makeKernel({ call: answerRoute([]) })
  const cases: [object, ProjectToken, RegExp][] = [
    [
      { ...body, search_params: { prompt_mode: 'custom', search_prompt: 'only {data}' } },
      service,
      /must contain \{data\} and \{query\}.*missing \{query\}/,
    ],
    [{ ...body, enable_search: true }, developer, /search_params.collection is required with a developer token/],
    [{ ...body, enable_search: true }, service, /the project has no default collection/],
    [{ ...body, model_provider: 'elsewhere' }, service, /unknown model_provider elsewhere/],
  ]
  for (const [b, token, message] of cases) {
    const run = await runPlugin(
      queryCompare,
      {},
      { kernel, body: b, principal, state: { queryAuth: { project, token } } },
    )
    assert.is(run.error?.status, 400, JSON.stringify(b))
    assert.match(run.error!.message, message)
  }
})

test.run()
