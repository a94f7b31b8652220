/**
 * A whole chat reply that needs no normalizing leaves the gateway as the model server wrote it
 * (its bytes, key order and spacing), over a real socket; one that needs it (reasoning_content,
 * a missing cached_tokens) is rewritten; a door that reads the reply (Responses) still gets the
 * object. Usage is recorded from the reply either way.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { modelsWith } from '../support/deployment-files.js'
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream.js'
import type { UsageRecord } from '../../kernel/contract/records.js'

const test = suite('e2e whole replies relayed as the server wrote them')
let upstream: FakeUpstream
let gw: TestGateway

// Spacing and key order no JSON.stringify of the parsed object would reproduce.
const AS_WRITTEN =
  '{ "model" : "relay-7b", "id": "c1", "object": "chat.completion", "created": 1,\n  "choices": [{"index": 0, "message": {"role": "assistant", "content": "caf\\u00e9 \\"quoted\\""}, "finish_reason": "stop"}],\n  "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12, "prompt_tokens_details": {"cached_tokens": 4}} }'
const NEEDS_CHANGE =
  '{"id": "c2", "object": "chat.completion", "created": 1, "model": "relay-7b", "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi", "reasoning_content": "think"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}}'

// The same over LARGE_BODY (read on the backend's worker, relayed as bytes): padded inside the content.
const PAD = 'pad é \\"x\\" '.repeat(200_000)
const LARGE_AS_WRITTEN = AS_WRITTEN.replace('caf\\u00e9', `caf\\u00e9 ${PAD}`)
const LARGE_NEEDS_CHANGE = NEEDS_CHANGE.replace('"hi"', `"hi ${PAD}"`)
const LARGE_CONTENT = 'large é😀 '.repeat(150_000)

test.before(async () => {
  upstream = await startFakeUpstream()
  upstream.handle((_req, body, res) => {
    const content = (JSON.parse(body) as { messages?: { content?: string }[] }).messages?.at(-1)?.content
    const answers: Record<string, string> = {
      change: NEEDS_CHANGE,
      [LARGE_CONTENT]: LARGE_AS_WRITTEN,
      [`change ${LARGE_CONTENT}`]: LARGE_NEEDS_CHANGE,
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(answers[content ?? ''] ?? AS_WRITTEN)
  })
  gw = await startTestGateway({
    files: {
      'config/models.yaml': modelsWith({
        backends: { relay: { url: upstream.url, capacity: 8 } },
        models: [{ id: 'relay', served_name: 'relay-7b', model_type: 'chat', backend: 'relay', context_window: 32768 }],
      }),
    },
  })
})
test.after(async () => {
  await gw.close()
  await upstream.close()
})

async function post(path: string, body: object): Promise<Response> {
  return fetch(`${gw.url}/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

async function lastRecord(): Promise<UsageRecord> {
  await gw.generation().records.flush()
  const rows = (await gw.generation().records.list({ from: 0, to: Date.now() + 1 }, 1000)) as UsageRecord[]
  return rows.sort((a, b) => a.at - b.at).at(-1)!
}

test('a reply that needs nothing changed arrives byte for byte, and its usage is recorded', async () => {
  const res = await post('/chat/completions', { model: 'relay', messages: [{ role: 'user', content: 'hello' }] })
  assert.is(res.status, 200)
  assert.ok(res.headers.get('content-type')?.startsWith('application/json'))
  assert.is(await res.text(), AS_WRITTEN)
  const row = await lastRecord()
  assert.equal([row.promptTokens, row.completionTokens, row.cachedTokens], [9, 3, 4])
})

test('a reply with reasoning_content and no cached_tokens is normalized before it leaves', async () => {
  const res = await post('/chat/completions', { model: 'relay', messages: [{ role: 'user', content: 'change' }] })
  assert.is(res.status, 200)
  const body = (await res.json()) as {
    choices: { message: Record<string, unknown> }[]
    usage: { prompt_tokens_details: unknown }
  }
  assert.is(body.choices[0]!.message.reasoning, 'think')
  assert.not.ok('reasoning_content' in body.choices[0]!.message)
  assert.equal(body.usage.prompt_tokens_details, { cached_tokens: 0 })
})

test('large: the body reaches the server as sent, the reply arrives byte for byte, usage is recorded', async () => {
  const sent = { model: 'relay', messages: [{ role: 'user', content: LARGE_CONTENT }], metadata: { n: [1, 2.5] } }
  const res = await post('/chat/completions', sent)
  assert.is(res.status, 200)
  assert.ok(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(LARGE_AS_WRITTEN)))
  assert.equal(upstream.received.at(-1)!.body, { ...sent, model: 'relay-7b' })
  const row = await lastRecord()
  assert.equal([row.promptTokens, row.completionTokens, row.cachedTokens], [9, 3, 4])
})

test('large: a reply that needs normalizing is normalized, and the Responses door reads it', async () => {
  const change = await post('/chat/completions', {
    model: 'relay',
    messages: [{ role: 'user', content: `change ${LARGE_CONTENT}` }],
  })
  const body = (await change.json()) as { choices: { message: Record<string, unknown> }[] }
  assert.equal(body, normalized(JSON.parse(LARGE_NEEDS_CHANGE)))
  const res = await post('/responses', { model: 'relay', input: LARGE_CONTENT, store: false })
  const response = (await res.json()) as { output: { content?: { text?: string }[] }[] }
  assert.is(response.output.at(-1)!.content![0]!.text, `café ${JSON.parse(`"${PAD}"`)} "quoted"`)
})

/** What the gateway makes of NEEDS_CHANGE: reasoning under its name, cached tokens said. */
function normalized(body: { choices: { message: Record<string, unknown> }[]; usage: Record<string, unknown> }) {
  const { reasoning_content, ...message } = body.choices[0]!.message
  body.choices[0]!.message = { ...message, reasoning: reasoning_content }
  body.usage.prompt_tokens_details = { cached_tokens: 0 }
  return body
}

test('the Responses door, which reads the chat reply, still gets it as an object', async () => {
  const res = await post('/responses', { model: 'relay', input: 'hello', store: false })
  assert.is(res.status, 200)
  const body = (await res.json()) as {
    object: string
    output: { content?: { text?: string }[] }[]
    usage: { input_tokens: number }
  }
  assert.is(body.object, 'response')
  assert.is(body.output.at(-1)!.content![0]!.text, 'café "quoted"')
  assert.is(body.usage.input_tokens, 9)
})

test.run()
