import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { RunningSimulator } from '../../sim/index.js'
import { chatBody, postError, postJson, startTestSimulator, type ChatCompletion } from './helpers.js'

const chat = suite<{ sim: RunningSimulator }>('sim: models and chat')

chat.before(async (ctx) => {
  ctx.sim = await startTestSimulator()
})
chat.after(async (ctx) => {
  await ctx.sim.close()
})

/** Output tokens are words with their leading space: counting them must give completion_tokens. */
function wordCount(text: string): number {
  return (text.match(/\s*\S+/g) ?? []).length
}

chat('GET /v1/models lists the configured models in vLLM shape', async ({ sim }) => {
  const res = await fetch(`${sim.url}/v1/models`)
  assert.is(res.status, 200)
  const body = (await res.json()) as {
    object: string
    data: Array<{ id: string; object: string; owned_by: string; max_model_len: number; parent: null }>
  }
  assert.is(body.object, 'list')
  assert.equal(
    body.data.map((m) => m.id),
    ['sim-instruct-8b', 'sim-thinker-8b', 'sim-vision-7b', 'sim-legacy-chat', 'sim-embed-384', 'sim-embed-fixed'],
  )
  assert.ok(body.data.every((m) => m.owned_by === 'sluice-sim' && m.object === 'model' && m.parent === null))
  assert.is(body.data[0]?.max_model_len, 32768)
})

chat('non-streamed chat: shape, usage consistent with the text, deterministic per prompt', async ({ sim }) => {
  const first = await postJson(sim, '/v1/chat/completions', chatBody('Tell me about rivers.'))
  assert.is(first.status, 200)
  const body = first.body
  assert.is(body.object, 'chat.completion')
  assert.is(body.model, 'sim-instruct-8b')
  assert.match(body.id, /^chatcmpl-/)
  const choice = body.choices[0]
  assert.ok(choice)
  assert.is(choice.message.role, 'assistant')
  assert.type(choice.message.content, 'string')
  assert.is(choice.message.reasoning, null)
  assert.equal(choice.message.tool_calls, [])
  assert.is(choice.finish_reason, 'stop')
  assert.is(body.usage.completion_tokens, wordCount(choice.message.content ?? ''))
  assert.is(body.usage.total_tokens, body.usage.prompt_tokens + body.usage.completion_tokens)
  assert.ok(body.usage.prompt_tokens_details, 'prompt_tokens_details is always present')
  const again = await postJson(sim, '/v1/chat/completions', chatBody('Tell me about rivers.'))
  assert.is(again.body.choices[0]?.message.content, choice.message.content)
  const other = await postJson(sim, '/v1/chat/completions', chatBody('Tell me about mountains, please.'))
  assert.is.not(other.body.choices[0]?.message.content, choice.message.content)
})

chat('max_tokens bounds the reply; finish_reason is length exactly when it is reached', async ({ sim }) => {
  let sawLength = false
  let sawStop = false
  for (let i = 0; i < 30; i++) {
    const { body } = await postJson(sim, '/v1/chat/completions', chatBody(`prompt number ${i}`, { max_tokens: 6 }))
    const choice = body.choices[0]
    assert.ok(choice)
    assert.ok(body.usage.completion_tokens >= 1 && body.usage.completion_tokens <= 6)
    assert.is(choice.finish_reason, body.usage.completion_tokens === 6 ? 'length' : 'stop')
    if (choice.finish_reason === 'length') sawLength = true
    else sawStop = true
  }
  assert.ok(sawLength && sawStop, 'the length histogram gives both outcomes')
})

chat('n > 1 gives several choices with their own text', async ({ sim }) => {
  const { body } = await postJson(sim, '/v1/chat/completions', chatBody('Several answers', { n: 3 }))
  assert.equal(
    body.choices.map((c) => c.index),
    [0, 1, 2],
  )
  const total = body.choices.reduce((sum, c) => sum + wordCount(c.message.content ?? ''), 0)
  assert.is(body.usage.completion_tokens, total)
})

chat('unknown model: 404 in the nested error form', async ({ sim }) => {
  const res = await postError(sim, '/v1/chat/completions', {
    model: 'nope',
    messages: [{ role: 'user', content: 'hi' }],
  })
  assert.is(res.status, 404)
  assert.equal(res.body, {
    error: { message: 'The model `nope` does not exist.', type: 'NotFoundError', param: 'model', code: 404 },
  })
})

chat('bad JSON: 400 "Invalid JSON", and the server keeps serving', async ({ sim }) => {
  const res = await postError(sim, '/v1/chat/completions', '{"model": "sim-instruct-8b", "messages": [')
  assert.is(res.status, 400)
  assert.is(res.body.error.message, 'Invalid JSON')
  assert.is(res.body.error.type, 'BadRequestError')
  const ok = await postJson(sim, '/v1/chat/completions', chatBody('still there?'))
  assert.is(ok.status, 200)
})

chat('prompt plus max_tokens over max_model_len: the current vLLM message', async ({ sim }) => {
  const long = 'word '.repeat(400)
  const res = await postError(sim, '/v1/chat/completions', {
    model: 'sim-legacy-chat',
    messages: [{ role: 'user', content: long }],
    max_tokens: 10,
  })
  assert.is(res.status, 400)
  assert.match(
    res.body.error.message,
    /^You passed \d+ input tokens and requested 10 output tokens\. However, the model's context length is only 256 tokens, resulting in a maximum input length of 246 tokens\. Please reduce the length of the input prompt\.$/,
  )
  assert.is(res.body.error.param, 'input_tokens')
})

chat('image parts count 256 prompt tokens each; an unfetchable https host gives 422', async ({ sim }) => {
  const text = { type: 'text', text: 'What is in this picture?' }
  const image = { type: 'image_url', image_url: { url: 'https://images.example.com/cat.png' } }
  const plain = await postJson(sim, '/v1/chat/completions', {
    model: 'sim-vision-7b',
    messages: [{ role: 'user', content: [text] }],
  })
  const withImage = await postJson(sim, '/v1/chat/completions', {
    model: 'sim-vision-7b',
    messages: [{ role: 'user', content: [text, image] }],
  })
  assert.is(withImage.status, 200)
  assert.is(withImage.body.usage.prompt_tokens, plain.body.usage.prompt_tokens + 256)
  const bad = { type: 'image_url', image_url: { url: 'https://unfetchable.example.com/x.png' } }
  const failed = await postError(sim, '/v1/chat/completions', {
    model: 'sim-instruct-8b',
    messages: [{ role: 'user', content: [text, bad] }],
  })
  assert.is(failed.status, 422)
  assert.is(failed.body.error.message, 'Failed to fetch media from URL')
  assert.is(failed.body.error.type, 'UnprocessableEntityError')
})

chat('chat on an embedding model is refused', async ({ sim }) => {
  const res = await postError(sim, '/v1/chat/completions', {
    model: 'sim-embed-384',
    messages: [{ role: 'user', content: 'hi' }],
  })
  assert.is(res.status, 400)
  assert.is(res.body.error.message, 'The model does not support Chat Completions API')
})

chat('GET /health: 200 with an empty body; unknown paths: FastAPI 404', async ({ sim }) => {
  const health = await fetch(`${sim.url}/health`)
  assert.is(health.status, 200)
  assert.is(await health.text(), '')
  const missing = await fetch(`${sim.url}/v1/nothing-here`)
  assert.is(missing.status, 404)
  assert.equal(await missing.json(), { detail: 'Not Found' })
})

chat('stats() counts what ran', async ({ sim }) => {
  const before = sim.stats().models['sim-instruct-8b']?.requests ?? 0
  await postJson<ChatCompletion>(sim, '/v1/chat/completions', chatBody('count me'))
  assert.is(sim.stats().models['sim-instruct-8b']?.requests, before + 1)
})

chat.run()
