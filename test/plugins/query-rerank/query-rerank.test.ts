/** query-rerank in isolation: the rerank call it makes and the envelope it answers with. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import queryRerank from '../../../plugins/query-rerank/index.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { fakeRoute, queryAuthState, queryPrincipal } from '../../support/query-state.js'
import type { UsageMetric } from '../../../protocols/query/usage-metric.js'

const test = suite('plugins/query-rerank')

const reranker = () =>
  fakeRoute(() => ({
    body: {
      model: 'sim-rerank',
      results: [
        { index: 1, relevance_score: 0.9 },
        { index: 0, relevance_score: 0.1 },
      ],
    },
    model: 'sim-rerank',
    input: 40,
    output: 0,
  }))

test('one call of the rerank route under the principal; ranked documents with their text; usage split', async () => {
  const { call, calls } = reranker()
  const run = await runPlugin(
    queryRerank,
    {},
    {
      kernel: makeKernel({ call }),
      principal: queryPrincipal,
      state: queryAuthState('service'),
      body: {
        query: 'cats sleep',
        documents: ['stocks', 'cats sleep a lot'],
        reranker_model: 'sim-rerank',
        reranker_provider: 'cohere',
        top_n: 2,
      },
    },
  )
  assert.is(run.error, undefined, run.error?.message)
  assert.equal(
    calls.map((c) => [c.route, c.body]),
    [['rerank', { model: 'sim-rerank', query: 'cats sleep', documents: ['stocks', 'cats sleep a lot'], top_n: 2 }]],
  )
  assert.equal(calls[0]!.options?.principal, queryPrincipal)
  const body = (
    run.reply as {
      body: {
        response: { response: unknown; metadata: { usage_metric: UsageMetric; query_id: string } }
        file: string
        query_id: string
      }
    }
  ).body
  assert.equal(body.response.response, [
    { index: 1, relevance_score: 0.9, document: 'cats sleep a lot' },
    { index: 0, relevance_score: 0.1, document: 'stocks' },
  ])
  assert.is(body.file, 'rerank')
  assert.match(body.query_id, /^q-/)
  const m = body.response.metadata.usage_metric
  assert.is(m.input_token_count, 40)
  assert.is(m.input_token_details.user_query, 2 * 2, 'the query (2 tokens) once per document')
  assert.ok(Math.abs(m.total_token_cost - (40 * 0.02) / 1e6) < 1e-15, "sim-rerank's prompt price")
})

test("reranker_provider must be the reranker server's API", async () => {
  const { call, calls } = reranker()
  const run = await runPlugin(
    queryRerank,
    {},
    {
      kernel: makeKernel({ call }),
      principal: queryPrincipal,
      state: queryAuthState('service'),
      body: { query: 'q', documents: ['a'], reranker_model: 'sim-rerank', reranker_provider: 'vllm-score' },
    },
  )
  assert.is(run.error?.status, 400)
  assert.is(
    run.error?.message,
    'reranker_provider vllm-score does not match reranker_model sim-rerank, whose server speaks cohere',
  )
  assert.is(calls.length, 0)
})

test.run()
