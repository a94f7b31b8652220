/**
 * Fitting inputs to a model's limit (input-fit.ts): the cut keeps the head within the budget;
 * KnowledgeBase.embedAll sends every input within the model's limit at the safe ratio, refits
 * once at the cautious ratio when the server still refuses, and reports a second refusal.
 * The rerank pair fitting (plugins/rerank/fit-pairs.ts) keeps each pair within the window.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { GatewayError } from '../../../../kernel/contract/index.js'
import {
  CAUTIOUS_TOKEN_RATIO,
  fitToTokens,
  isInputTooLong,
  SAFE_TOKEN_RATIO,
} from '../../../../domains/query/knowledge/input-fit.js'
import {
  DEFAULT_KNOWLEDGE_SETTINGS,
  KnowledgeBase,
  type Embed,
} from '../../../../domains/query/knowledge/knowledge-base.js'
import { countTokens } from '../../../../domains/query/knowledge/tokens.js'
import { fitPairs, overLimit, PAIR_SPECIAL_TOKENS } from '../../../../plugins/rerank/fit-pairs.js'

const test = suite('input fitting')
const long = Array.from({ length: 3000 }, (_, i) => `word${i % 50} is number ${i}.`).join(' ')

test('fitToTokens keeps the longest head within the budget, cut at a space', () => {
  const { text, truncated } = fitToTokens(long, 300)
  assert.ok(truncated)
  assert.ok(countTokens(text) <= 300 && countTokens(text) > 270, `${countTokens(text)} tokens`)
  assert.ok(long.startsWith(text))
  assert.ok(/\s/.test(long[text.length] ?? ' '), 'cut at white space')
  assert.equal(fitToTokens('short text', 300), { text: 'short text', truncated: false })
})

test('isInputTooLong knows the servers’ wording', () => {
  assert.ok(isInputTooLong("This model's maximum context length is 1024 tokens. However, you requested 3000 tokens"))
  assert.ok(isInputTooLong("However, the model's context length is only 512 tokens"))
  assert.not.ok(isInputTooLong('model not found'))
})

function fakeEmbed(limitModelTokens: number, modelRatio: number, calls: string[][]): Embed {
  const embed = async (_model: string, input: readonly string[]) => {
    calls.push([...input])
    const over = input.find((t) => countTokens(t) * modelRatio > limitModelTokens)
    if (over !== undefined)
      throw new GatewayError(
        502,
        `embedding model m refused the input (400): This model's maximum context length is ${limitModelTokens} tokens.`,
      )
    return input.map(() => new Float32Array(4))
  }
  return Object.assign(embed, { inputTokens: () => limitModelTokens })
}

test('embedAll fits every input to the limit at the safe ratio', async () => {
  const kb = new KnowledgeBase(undefined as never, DEFAULT_KNOWLEDGE_SETTINGS)
  const calls: string[][] = []
  const vectors = await kb.embedAll('m', [long, 'short'], fakeEmbed(1024, 1.8, calls))
  assert.is(vectors.length, 2)
  assert.is(calls.length, 1)
  assert.ok(countTokens(calls[0]![0]!) <= 1024 / SAFE_TOKEN_RATIO)
  assert.is(calls[0]![1], 'short')
})

test('embedAll refits once at the cautious ratio when the server still refuses, then reports the refusal', async () => {
  const kb = new KnowledgeBase(undefined as never, DEFAULT_KNOWLEDGE_SETTINGS)
  const calls: string[][] = []
  await kb.embedAll('m', [long], fakeEmbed(1024, 3, calls))
  assert.is(calls.length, 2, 'refused once, refitted once')
  assert.ok(countTokens(calls[1]![0]!) <= 1024 / CAUTIOUS_TOKEN_RATIO)
  const worse: string[][] = []
  try {
    await kb.embedAll('m', [long], fakeEmbed(1024, 5, worse))
    assert.unreachable('a second refusal fails')
  } catch (err) {
    assert.instance(err, GatewayError)
    assert.is((err as GatewayError).status, 502)
    assert.match((err as GatewayError).message, /maximum context length/)
  }
  assert.is(worse.length, 2)
})

test('without a known limit, inputs go unchanged', async () => {
  const kb = new KnowledgeBase(undefined as never, DEFAULT_KNOWLEDGE_SETTINGS)
  const calls: string[][] = []
  const embed: Embed = async (_m, input) => {
    calls.push([...input])
    return input.map(() => new Float32Array(4))
  }
  await kb.embedAll('m', [long], embed)
  assert.is(calls[0]![0], long)
})

test('rerank pairs: each pair fits the window at its ratio; a long query is cut to half of it', () => {
  const window = 512
  const ratio = () => 1.3
  const query = long.slice(0, 4000)
  assert.ok(overLimit(query, [long], window).length > 0)
  assert.equal(overLimit('short', ['also short'], window), [])
  const fitted = fitPairs(query, [long, 'a short document'], window, ratio)
  assert.ok(countTokens(fitted.query) * 1.3 <= (window - PAIR_SPECIAL_TOKENS) / 2)
  for (const d of fitted.documents)
    assert.ok((countTokens(fitted.query) + countTokens(d)) * 1.3 <= window - PAIR_SPECIAL_TOKENS + 2)
  assert.is(fitted.documents[1], 'a short document')
  assert.is(fitted.cut, 2)
})

test.run()
