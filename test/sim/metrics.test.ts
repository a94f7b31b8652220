import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { RunningSimulator } from '../../sim/index.js'
import { chatBody, metricsText, metricValue, postJson, postStream, startTestSimulator } from './helpers.js'

const metrics = suite<{ sim: RunningSimulator }>('sim: /metrics')

metrics.before(async (ctx) => {
  ctx.sim = await startTestSimulator()
})
metrics.after(async (ctx) => {
  await ctx.sim.close()
})

const names = [
  'vllm:num_requests_running',
  'vllm:num_requests_waiting',
  'vllm:kv_cache_usage_perc',
  'vllm:prefix_cache_hits_total',
  'vllm:prefix_cache_queries_total',
  'vllm:prompt_tokens_total',
  'vllm:generation_tokens_total',
  'vllm:request_success_total',
  'vllm:time_to_first_token_seconds_bucket',
  'vllm:inter_token_latency_seconds_bucket',
  'vllm:e2e_request_latency_seconds_bucket',
  'vllm:request_queue_time_seconds_bucket',
  'vllm:e2e_request_latency_seconds_sum',
  'vllm:request_queue_time_seconds_count',
]

metrics('vLLM metric names with a model_name label, counting what was served', async ({ sim }) => {
  const a = await postJson(sim, '/v1/chat/completions', chatBody('first', { max_tokens: 5 }))
  const b = await postJson(sim, '/v1/chat/completions', chatBody('second'))
  await postStream(sim, '/v1/chat/completions', chatBody('third', { stream: true }))
  const res = await fetch(`${sim.url}/metrics`)
  assert.is(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/)
  const text = await metricsText(sim)
  for (const name of names)
    assert.ok(metricValue(text, name, 'sim-instruct-8b') !== undefined, `${name} for sim-instruct-8b`)
  assert.match(text, /# TYPE vllm:time_to_first_token_seconds histogram/)
  const prompt = metricValue(text, 'vllm:prompt_tokens_total', 'sim-instruct-8b') ?? 0
  assert.ok(prompt >= a.body.usage.prompt_tokens + b.body.usage.prompt_tokens)
  const generated = metricValue(text, 'vllm:generation_tokens_total', 'sim-instruct-8b') ?? 0
  assert.ok(generated >= a.body.usage.completion_tokens + b.body.usage.completion_tokens)
  const stops = metricValue(text, 'vllm:request_success_total', 'sim-instruct-8b', 'finished_reason="stop"') ?? 0
  const lengths = metricValue(text, 'vllm:request_success_total', 'sim-instruct-8b', 'finished_reason="length"') ?? 0
  assert.is(stops + lengths, 3)
  assert.is(metricValue(text, 'vllm:e2e_request_latency_seconds_bucket', 'sim-instruct-8b', 'le="+Inf"'), 3)
  assert.is(metricValue(text, 'vllm:num_requests_running', 'sim-instruct-8b'), 0)
  assert.is(metricValue(text, 'vllm:prompt_tokens_total', 'sim-thinker-8b'), 0, 'other models are untouched')
})

metrics.run()
