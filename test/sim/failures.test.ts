import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { RunningSimulator } from '../../sim/index.js'
import {
  chatBody,
  chunksOf,
  metricsText,
  metricValue,
  postError,
  postJson,
  postStream,
  startTestSimulator,
} from './helpers.js'

const failures = suite<{ sim: RunningSimulator }>('sim: failure injection')

failures.before(async (ctx) => {
  ctx.sim = await startTestSimulator()
})
failures.after(async (ctx) => {
  await ctx.sim.close()
})

const table: Array<[string, number, string, string, string | null]> = [
  [
    '429',
    429,
    'RateLimitError',
    'Rate limit reached for sim-instruct-8b in organization org-xxx on requests per min (RPM): Limit 3, Used 3, Requested 1.',
    null,
  ],
  ['401', 401, 'AuthenticationError', 'Incorrect API key provided.', null],
  ['503', 503, 'InternalServerError', 'The server is overloaded or not ready yet.', null],
  ['400', 400, 'BadRequestError', "Invalid request: missing required parameter 'model'.", 'model'],
  ['404', 404, 'NotFoundError', "The model 'sim-instruct-8b-nonexistent' does not exist", 'model'],
  [
    'context_length',
    400,
    'BadRequestError',
    "This model's maximum context length is 4096 tokens. However, your messages resulted in 4500 tokens.",
    'messages',
  ],
]

failures("x-return-error forces each status with llm-d's message", async ({ sim }) => {
  for (const [header, status, type, message, param] of table) {
    for (const name of ['x-return-error', 'X-Return-Error']) {
      const res = await postError(sim, '/v1/chat/completions', chatBody('fail please'), { [name]: header })
      assert.is(res.status, status, `${name}: ${header}`)
      assert.equal(res.body, { error: { message, type, param, code: status } })
    }
  }
  const other = await postError(sim, '/v1/chat/completions', chatBody('fail please'), { 'x-return-error': '500' })
  assert.is(other.status, 500)
  assert.is(other.body.error.type, 'InternalServerError')
})

failures('x-return-error applies to completions and embeddings too', async ({ sim }) => {
  const completion = await postError(
    sim,
    '/v1/completions',
    { model: 'sim-instruct-8b', prompt: 'x' },
    { 'x-return-error': '503' },
  )
  assert.is(completion.status, 503)
  const embedding = await postError(
    sim,
    '/v1/embeddings',
    { model: 'sim-embed-384', input: 'x' },
    { 'x-return-error': '429' },
  )
  assert.is(embedding.status, 429)
})

failures('x-sim-cut-after: N token chunks, then the connection dies without [DONE]', async ({ sim }) => {
  const res = await postStream(
    sim,
    '/v1/chat/completions',
    { ...chatBody('cut me'), model: 'sim-thinker-8b', stream: true },
    { 'x-sim-cut-after': '3' },
  )
  assert.is(res.status, 200)
  assert.ok(res.error, 'reading the body fails')
  assert.not.ok(res.events.includes('[DONE]'))
  const chunks = chunksOf(res.events)
  assert.equal(chunks[0]?.choices[0]?.delta, { role: 'assistant', content: '' })
  assert.is(chunks.length, 4, 'the role chunk and three token chunks')
  assert.ok(chunks.every((c) => !c.choices[0]?.finish_reason))
  const after = await postJson(sim, '/v1/chat/completions', chatBody('the server survived'))
  assert.is(after.status, 200)
})

failures('x-sim-stall-ms holds the first token back; other requests are not held', async ({ sim }) => {
  const controller = new AbortController()
  let stalledSettled = false
  const stalled = fetch(`${sim.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sim-stall-ms': '600000' },
    body: JSON.stringify(chatBody('stall me')),
    signal: controller.signal,
  }).then(
    () => (stalledSettled = true),
    () => (stalledSettled = true),
  )
  const quick = await postJson(sim, '/v1/chat/completions', { ...chatBody('go ahead'), model: 'sim-vision-7b' })
  assert.is(quick.status, 200)
  assert.not.ok(stalledSettled, 'the stalled request has not answered')
  controller.abort()
  await stalled
})

failures('failure rate by config, changed at runtime through /admin/config', async ({ sim }) => {
  const current = (await (await fetch(`${sim.url}/admin/config`)).json()) as { failure: { rate: number } }
  assert.is(current.failure.rate, 0)
  const set = await postJson<{ failure: { rate: number; types: string[] } }>(sim, '/admin/config', {
    failure: { rate: 100, types: ['server_error'] },
  })
  assert.is(set.status, 200)
  assert.equal(set.body.failure.types, ['server_error'])
  const failed = await postError(sim, '/v1/chat/completions', chatBody('unlucky'))
  assert.is(failed.status, 503)
  assert.is(failed.body.error.message, 'The server is overloaded or not ready yet.')
  await postJson(sim, '/admin/config', { failure: { rate: 100, types: ['cut_stream'], cut_after_chunks: 2 } })
  const cut = await postStream(sim, '/v1/chat/completions', {
    ...chatBody('cut by config'),
    model: 'sim-thinker-8b',
    stream: true,
  })
  assert.ok(cut.error)
  assert.is(chunksOf(cut.events).length, 3)
  await postJson(sim, '/admin/config', { failure: { rate: 0 } })
  const fine = await postJson(sim, '/v1/chat/completions', chatBody('lucky'))
  assert.is(fine.status, 200)
  const invalid = await postError(sim, '/admin/config', { failure: { rate: 101 } })
  assert.is(invalid.status, 400)
  const unknown = await postError(sim, '/admin/config', { max_running: 3 })
  assert.is(unknown.status, 400)
})

failures('cut and abandoned requests count as aborted in the metrics', async ({ sim }) => {
  const text = await metricsText(sim)
  assert.ok((metricValue(text, 'vllm:request_success_total', 'sim-thinker-8b', 'finished_reason="abort"') ?? 0) >= 2)
})

failures.run()
