import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { RunningSimulator } from '../../sim/index.js'
import { metricsText, metricValue, postJson, startTestSimulator } from './helpers.js'

const cache = suite<{ sim: RunningSimulator }>('sim: prefix cache')

cache.before(async (ctx) => {
  ctx.sim = await startTestSimulator()
})
cache.after(async (ctx) => {
  await ctx.sim.close()
})

const system = 'You are a careful assistant. '.repeat(20)

function conversation(question: string): Record<string, unknown> {
  return {
    model: 'sim-instruct-8b',
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: question },
    ],
  }
}

cache('the second request with the same long first message reports cached tokens in whole blocks', async ({ sim }) => {
  const first = await postJson(sim, '/v1/chat/completions', conversation('First question?'))
  assert.is(first.body.usage.prompt_tokens_details?.cached_tokens, 0)
  const second = await postJson(sim, '/v1/chat/completions', conversation('A different second question?'))
  const cached = second.body.usage.prompt_tokens_details?.cached_tokens ?? 0
  // The system turn alone is 580 bytes, 145 tokens plus framing: at least 9 whole blocks are shared.
  assert.ok(cached >= 144, `cached ${cached}`)
  assert.is(cached % 16, 0)
  assert.ok(cached < second.body.usage.prompt_tokens)
  const unrelated = await postJson(sim, '/v1/chat/completions', {
    model: 'sim-instruct-8b',
    messages: [{ role: 'user', content: 'Nothing in common with the others at all, '.repeat(10) }],
  })
  assert.is(unrelated.body.usage.prompt_tokens_details?.cached_tokens, 0)
})

cache('an identical prompt is cached up to its last token, in whole blocks', async ({ sim }) => {
  const request = conversation('Same again.')
  await postJson(sim, '/v1/chat/completions', request)
  const again = await postJson(sim, '/v1/chat/completions', request)
  const prompt = again.body.usage.prompt_tokens
  assert.is(again.body.usage.prompt_tokens_details?.cached_tokens, Math.floor((prompt - 1) / 16) * 16)
})

cache('the cache is per model, and the metrics count queried and hit tokens', async ({ sim }) => {
  const other = await postJson(sim, '/v1/chat/completions', {
    ...conversation('First question?'),
    model: 'sim-thinker-8b',
  })
  assert.is(other.body.usage.prompt_tokens_details?.cached_tokens, 0)
  const stats = sim.stats().models['sim-instruct-8b']
  assert.ok(stats)
  const text = await metricsText(sim)
  assert.is(metricValue(text, 'vllm:prefix_cache_hits_total', 'sim-instruct-8b'), stats.prefixCacheHits)
  assert.is(metricValue(text, 'vllm:prefix_cache_queries_total', 'sim-instruct-8b'), stats.prefixCacheQueries)
  assert.ok(stats.prefixCacheHits > 0)
})

cache.run()
