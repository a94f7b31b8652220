/** The usage_metric of a search: its model calls summed, each priced at its model, split by part. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { MeteredCalls } from '../../../plugins/query-search/metered-calls.js'
import { makeKernel } from '../../../bin/testing/harness.js'
import { fakeRoute } from '../../support/query-state.js'

const test = suite('plugins/query-search: metered calls')
const catalog = makeKernel().catalog
const modelOf = (id: string) => catalog.model(id)

test('embeddings, variants and rerank: the parts add up, the costs follow each model', async () => {
  const { call } = fakeRoute((route) =>
    route === 'embeddings'
      ? { body: {}, model: 'use-lite', input: 12, output: 0 }
      : route === 'rerank'
        ? { body: {}, model: 'sim-rerank', input: 60, output: 0 }
        : { body: {}, model: 'sim-chat-instruct', input: 80, output: 20 },
  )
  const metered = new MeteredCalls(call)
  await metered.call('embeddings', { input: ['cats sleep'] })
  await metered.call('chat-internal', { messages: [] })
  await metered.call('rerank', { query: 'cats sleep', documents: ['one document here', 'another'] })
  const m = metered.usageMetric('cats sleep', modelOf)
  assert.is(m.input_token_count, 152)
  assert.is(m.output_token_count, 20)
  assert.is(
    Object.values(m.input_token_details).reduce((s, n) => s + n, 0),
    152,
  )
  assert.ok(m.input_token_details.knowledge_base > 0, 'the reranked documents')
  // use-lite 0.01, sim-chat-instruct 0.10 / 0.30, sim-rerank 0.02 per million (config/models.yaml).
  const expected = (12 * 0.01 + 80 * 0.1 + 20 * 0.3 + 60 * 0.02) / 1e6
  assert.ok(Math.abs(m.total_token_cost - expected) < 1e-12, `${m.total_token_cost} vs ${expected}`)
})

test('no calls: zeros', () => {
  const m = new MeteredCalls(fakeRoute(() => ({ body: {}, model: 'x', input: 0, output: 0 })).call).usageMetric(
    'q',
    modelOf,
  )
  assert.equal([m.input_token_count, m.output_token_count, m.total_token_cost], [0, 0, 0])
})

test.run()
