/** The rerank adapters alone: what each writes for a server, and how each reads its answer back. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { cohereRequest, cohereScores } from '../../../protocols/rerank/cohere.js'
import { teiRequest, teiScores } from '../../../protocols/rerank/tei.js'
import { vllmScoreRequest, vllmScoreScores } from '../../../protocols/rerank/vllm-score.js'

const test = suite('protocols rerank: cohere, tei, vllm-score adapters')
const ask = { query: 'what is a cat', documents: ['a dog', 'a cat is an animal', 'rain'] }

test('cohere: {model, query, documents, top_n} out; results and usage in', () => {
  assert.equal(cohereRequest(ask, 'bge'), {
    model: 'bge',
    query: 'what is a cat',
    documents: ['a dog', 'a cat is an animal', 'rain'],
  })
  assert.equal(cohereRequest({ ...ask, topN: 2 }, 'bge').top_n, 2)
  const vllm = {
    id: 'rerank-1',
    model: 'bge',
    usage: { total_tokens: 31 },
    results: [
      { index: 1, document: { text: 'x' }, relevance_score: 0.9 },
      { index: 0, relevance_score: 0.1 },
    ],
  }
  assert.equal(cohereScores(vllm, 3), {
    scores: [
      { index: 1, score: 0.9 },
      { index: 0, score: 0.1 },
    ],
    tokens: 31,
  })
  // Cohere itself: billed search units, no tokens.
  assert.equal(
    cohereScores(
      { id: 'x', results: [{ index: 2, relevance_score: 0.5 }], meta: { billed_units: { search_units: 1 } } },
      3,
    ),
    { scores: [{ index: 2, score: 0.5 }] },
  )
})

test('cohere: malformed replies are named', () => {
  assert.equal(cohereScores({ data: [] }, 3), { malformed: 'no results' })
  assert.equal(cohereScores({ results: [{ index: 3, relevance_score: 0.5 }] }, 3), {
    malformed: 'index 3 is not one of the 3 documents',
  })
  assert.equal(
    cohereScores(
      {
        results: [
          { index: 0, relevance_score: 0.5 },
          { index: 0, relevance_score: 0.4 },
        ],
      },
      3,
    ),
    { malformed: 'index 0 is scored twice' },
  )
  assert.equal(cohereScores({ results: [{ index: 0, relevance_score: 'high' }] }, 3), {
    malformed: 'the score of index 0 is not a number',
  })
  assert.equal(cohereScores({ results: [null] }, 3), { malformed: 'a result is not an object' })
})

test('tei: {query, texts, raw_scores: false} out; a bare array in, one score per text', () => {
  assert.equal(teiRequest(ask), {
    query: 'what is a cat',
    texts: ['a dog', 'a cat is an animal', 'rain'],
    raw_scores: false,
    return_text: false,
  })
  const reply = [
    { index: 1, score: 0.99 },
    { index: 0, score: 0.2 },
    { index: 2, score: 0.01 },
  ]
  assert.equal(teiScores(reply, 3), {
    scores: [
      { index: 1, score: 0.99 },
      { index: 0, score: 0.2 },
      { index: 2, score: 0.01 },
    ],
  })
  assert.equal(teiScores({ results: reply }, 3), { malformed: 'not an array of scores' })
  assert.equal(teiScores(reply.slice(0, 2), 3), { malformed: '2 scores for 3 documents' })
})

test('vllm-score: {model, text_1, text_2} out; data and usage in, one score per document', () => {
  assert.equal(vllmScoreRequest(ask, 'bge'), {
    model: 'bge',
    text_1: 'what is a cat',
    text_2: ['a dog', 'a cat is an animal', 'rain'],
  })
  const reply = {
    id: 'score-1',
    object: 'list',
    data: [0.1, 0.9, 0.01].map((score, index) => ({ index, object: 'score', score })),
    usage: { prompt_tokens: 30, total_tokens: 30 },
  }
  assert.equal(vllmScoreScores(reply, 3), {
    scores: [
      { index: 0, score: 0.1 },
      { index: 1, score: 0.9 },
      { index: 2, score: 0.01 },
    ],
    tokens: 30,
  })
  assert.equal(vllmScoreScores({ ...reply, usage: undefined }, 3), {
    scores: [
      { index: 0, score: 0.1 },
      { index: 1, score: 0.9 },
      { index: 2, score: 0.01 },
    ],
  })
  assert.equal(vllmScoreScores({ ...reply, data: reply.data.slice(1) }, 3), { malformed: '2 scores for 3 documents' })
  assert.equal(vllmScoreScores([], 3), { malformed: 'no data' })
})

test.run()
