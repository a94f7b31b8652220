import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { RunningSimulator } from '../../sim/index.js'
import { chunksOf, postError, postJson, postStream, startTestSimulator } from './helpers.js'

const endpoints = suite<{ sim: RunningSimulator }>('sim: completions, embeddings, tokenizer')

endpoints.before(async (ctx) => {
  ctx.sim = await startTestSimulator()
})
endpoints.after(async (ctx) => {
  await ctx.sim.close()
})

interface TextCompletion {
  object: string
  model: string
  choices: Array<{ index: number; text: string; finish_reason: string }>
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number }
}

interface TextChunk {
  choices: Array<{ index: number; text: string; finish_reason: string | null }>
  usage?: { completion_tokens: number }
}

endpoints('POST /v1/completions: text out, 16 tokens at most by default, batches of prompts', async ({ sim }) => {
  const { status, body } = await postJson<TextCompletion>(sim, '/v1/completions', {
    model: 'sim-instruct-8b',
    prompt: 'The quick brown fox',
  })
  assert.is(status, 200)
  assert.is(body.object, 'text_completion')
  const choice = body.choices[0]
  assert.ok(choice)
  assert.type(choice.text, 'string')
  assert.ok(body.usage.completion_tokens >= 1 && body.usage.completion_tokens <= 16)
  assert.is(choice.finish_reason, body.usage.completion_tokens === 16 ? 'length' : 'stop')
  const batch = await postJson<TextCompletion>(sim, '/v1/completions', {
    model: 'sim-instruct-8b',
    prompt: ['one', 'two'],
    max_tokens: 4,
  })
  assert.equal(
    batch.body.choices.map((c) => c.index),
    [0, 1],
  )
})

endpoints('completions stream: text chunks, finish chunk, usage chunk, [DONE]', async ({ sim }) => {
  const res = await postStream<TextChunk>(sim, '/v1/completions', {
    model: 'sim-instruct-8b',
    prompt: 'Stream it',
    max_tokens: 8,
    stream: true,
    stream_options: { include_usage: true },
  })
  assert.is(res.events[res.events.length - 1], '[DONE]')
  const chunks = chunksOf(res.events)
  const usage = chunks[chunks.length - 1]?.usage
  assert.ok(usage)
  assert.is(chunks.filter((c) => c.choices[0]?.text).length, usage.completion_tokens)
})

endpoints('completions only where configured', async ({ sim }) => {
  const res = await postError(sim, '/v1/completions', { model: 'sim-thinker-8b', prompt: 'x' })
  assert.is(res.status, 400)
  assert.is(res.body.error.message, 'The model does not support Completions API')
})

interface Embeddings {
  object: string
  model: string
  data: Array<{ index: number; object: string; embedding: number[] | string }>
  usage: { prompt_tokens: number; total_tokens: number }
}

endpoints('POST /v1/embeddings: deterministic unit vectors; base64 float32', async ({ sim }) => {
  const { status, body } = await postJson<Embeddings>(sim, '/v1/embeddings', {
    model: 'sim-embed-384',
    input: ['alpha', 'beta', 'alpha'],
  })
  assert.is(status, 200)
  assert.is(body.object, 'list')
  assert.is(body.data.length, 3)
  const [a, b, a2] = body.data.map((d) => d.embedding as number[])
  assert.ok(a && b && a2)
  assert.is(a.length, 384)
  assert.ok(Math.abs(Math.hypot(...a) - 1) < 1e-9)
  assert.equal(a, a2)
  assert.not.equal(a, b)
  assert.is(body.usage.total_tokens, body.usage.prompt_tokens)
  const encoded = await postJson<Embeddings>(sim, '/v1/embeddings', {
    model: 'sim-embed-384',
    input: 'alpha',
    encoding_format: 'base64',
  })
  const buffer = Buffer.from(encoded.body.data[0]?.embedding as string, 'base64')
  const floats = new Float32Array(buffer.buffer, buffer.byteOffset, buffer.byteLength / 4)
  assert.is(floats.length, 384)
  assert.ok(Math.abs((floats[0] ?? 0) - (a[0] ?? 0)) < 1e-6)
  const chatModel = await postError(sim, '/v1/embeddings', { model: 'sim-instruct-8b', input: 'x' })
  assert.is(chatModel.status, 400)
  assert.is(chatModel.body.error.message, 'The model does not support Embeddings API')
})

endpoints(
  'POST /v1/embeddings: dimensions on a Matryoshka model give the renormalised head; other models refuse them as vLLM does',
  async ({ sim }) => {
    const full = (await postJson<Embeddings>(sim, '/v1/embeddings', { model: 'sim-embed-384', input: 'alpha' })).body
      .data[0]!.embedding as number[]
    const { status, body } = await postJson<Embeddings>(sim, '/v1/embeddings', {
      model: 'sim-embed-384',
      input: 'alpha',
      dimensions: 16,
    })
    assert.is(status, 200)
    const short = body.data[0]!.embedding as number[]
    const head = full.slice(0, 16)
    const n = Math.hypot(...head)
    assert.ok(short.length === 16 && short.every((x, i) => Math.abs(x - head[i]! / n) < 1e-12))
    const over = await postError(sim, '/v1/embeddings', { model: 'sim-embed-384', input: 'alpha', dimensions: 385 })
    assert.equal([over.status, over.body.error.message], [400, 'dimensions must be between 1 and 384 for this model.'])
    const fixed = await postError(sim, '/v1/embeddings', { model: 'sim-embed-fixed', input: 'alpha', dimensions: 8 })
    assert.equal(
      [fixed.status, fixed.body.error.message],
      [
        400,
        'Model "sim-embed-fixed" does not support matryoshka representation, changing output dimensions will lead to poor results.',
      ],
    )
    assert.is(
      (await postJson<Embeddings>(sim, '/v1/embeddings', { model: 'sim-embed-fixed', input: 'alpha' })).body.data[0]!
        .embedding.length,
      8,
    )
  },
)

interface Tokenized {
  count: number
  max_model_len: number
  tokens: number[]
  token_strs: string[] | null
}

endpoints('POST /tokenize and /detokenize round-trip; messages count as chat prompts do', async ({ sim }) => {
  const text = 'Héllo, wörld! Tokens of four bytes.'
  const { status, body } = await postJson<Tokenized>(sim, '/tokenize', {
    model: 'sim-instruct-8b',
    prompt: text,
    add_special_tokens: false,
  })
  assert.is(status, 200)
  assert.is(body.count, body.tokens.length)
  assert.is(body.count, Math.ceil(Buffer.byteLength(text) / 4))
  assert.is(body.max_model_len, 32768)
  assert.is(body.token_strs, null)
  const back = await postJson<{ prompt: string }>(sim, '/detokenize', { model: 'sim-instruct-8b', tokens: body.tokens })
  assert.is(back.body.prompt, text)
  const messages = [{ role: 'user', content: 'How many tokens is this?' }]
  const counted = await postJson<Tokenized>(sim, '/tokenize', { model: 'sim-instruct-8b', messages })
  const chat = await postJson(sim, '/v1/chat/completions', { model: 'sim-instruct-8b', messages })
  assert.is(counted.body.count, chat.body.usage.prompt_tokens)
  const strs = await postJson<Tokenized>(sim, '/tokenize', {
    prompt: 'abcdefgh',
    add_special_tokens: false,
    return_token_strs: true,
  })
  assert.equal(strs.body.token_strs, ['abcd', 'efgh'])
  const unknown = await postError(sim, '/tokenize', { model: 'nope', prompt: 'x' })
  assert.is(unknown.status, 404)
})

endpoints.run()
