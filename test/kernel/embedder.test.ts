/**
 * The embedded embedder on its own (kernel/services/embedder/), as the gateway's adapter sees
 * it: vLLM's shapes for the models list, /tokenize and the refusals the e2e suite does not
 * reach through the gateway (the gateway checks most of them first).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startEmbedder, type RunningEmbedder } from '../../kernel/services/embedder/index.js'

const test = suite('kernel: the embedded embedder')
let embedder: RunningEmbedder

test.before(async () => {
  embedder = await startEmbedder()
})
test.after(() => embedder.close())

async function post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${embedder.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

test('GET /v1/models names the one model', async () => {
  const res = (await (await fetch(`${embedder.url}/v1/models`)).json()) as {
    data: { id: string; max_model_len: number }[]
  }
  assert.equal(
    res.data.map((m) => [m.id, m.max_model_len]),
    [['use-lite', 1024]],
  )
})

test("POST /tokenize counts with the model's own tokenizer, the figure usage reports", async () => {
  const tok = await post('/tokenize', { model: 'use-lite', prompt: 'The cat sat on the mat' })
  assert.is(tok.status, 200)
  assert.is(tok.json.count, (tok.json.tokens as number[]).length)
  const emb = await post('/v1/embeddings', { model: 'use-lite', input: 'The cat sat on the mat' })
  assert.is((emb.json.usage as { prompt_tokens: number }).prompt_tokens, tok.json.count)
})

test("refusals in vLLM's error shape", async () => {
  const cases: [unknown, number, string][] = [
    [{ model: 'other', input: 'x' }, 404, 'The model `other` does not exist.'],
    [
      { model: 'use-lite', input: 'x', encoding_format: 'int8' },
      400,
      "encoding_format: Input should be 'float' or 'base64'",
    ],
    [{ model: 'use-lite', input: [] }, 400, 'input: Input should be a string or a non-empty list of strings'],
    [
      { model: 'use-lite', input: Array(2049).fill('x') },
      400,
      'input: at most 2048 inputs per request; 2049 were sent',
    ],
    ['{not json', 400, 'the body is not valid JSON'],
  ]
  for (const [body, status, message] of cases) {
    const res = await post('/v1/embeddings', body)
    assert.equal(
      [
        res.status,
        (res.json.error as { message: string; code: number }).message,
        (res.json.error as { code: number }).code,
      ],
      [status, message, status],
    )
  }
})

test.run()
