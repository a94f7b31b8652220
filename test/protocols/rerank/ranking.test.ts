/** The shared rerank vocabulary: demand, the gateway's own count, ranking and the reply. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  documentText,
  estimatedRerankTokens,
  ranked,
  rerankDemand,
  rerankReply,
} from '../../../protocols/rerank/ranking.js'

const test = suite('protocols rerank: ranking and the reply')

test('documents as strings or {text} objects', () => {
  assert.equal(['a', { text: 'b' }].map(documentText), ['a', 'b'])
})

test('demand: the query is read once per document, a token per byte at most, with special tokens per pair', () => {
  assert.equal(rerankDemand('abcd', ['xy', 'é']), {
    inputTokens: 4 + 2 + 4 + (4 + 2 + 4),
    outputTokens: 0,
    choices: 1,
    adjustable: false,
  })
  // The estimate never exceeds the demand: budgets reserve enough.
  const docs = ['one document', 'another, longer document about something else']
  assert.ok(estimatedRerankTokens('a query', docs) <= rerankDemand('a query', docs).inputTokens)
  assert.is(estimatedRerankTokens('abcd', ['abcd']), 2 + 4)
})

test('ranked: best first, ties in request order, top_n keeps the best', () => {
  const scores = [
    { index: 2, score: 0.5 },
    { index: 0, score: 0.5 },
    { index: 1, score: 0.9 },
  ]
  assert.equal(
    ranked(scores, undefined).map((s) => s.index),
    [1, 0, 2],
  )
  assert.equal(
    ranked(scores, 2).map((s) => s.index),
    [1, 0],
  )
})

test('the reply: Cohere/Jina shape, documents only when asked', () => {
  const best = [{ index: 1, score: 0.9 }]
  assert.equal(rerankReply('rerank-1', 'm', best, ['a', 'b'], false, 7), {
    id: 'rerank-1',
    model: 'm',
    results: [{ index: 1, relevance_score: 0.9 }],
    usage: { total_tokens: 7 },
  })
  assert.equal(rerankReply('rerank-1', 'm', best, ['a', 'b'], true, 7).results, [
    { index: 1, relevance_score: 0.9, document: { text: 'b' } },
  ])
})

test.run()
