import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import OpenAI from 'openai'
import { startTestGateway, type TestGateway } from '../support/gateway.js'

const test = suite('e2e chat with the openai SDK')
let gw: TestGateway
let client: OpenAI

test.before(async () => {
  gw = await startTestGateway()
  client = gw.openai()
})
test.after(async () => gw.close())

test('lists the demo catalog', async () => {
  const page = await client.models.list()
  const ids = page.data.map((m) => m.id)
  for (const id of [
    'sim-chat',
    'sim-chat-instruct',
    'sim-chat-thinking',
    'sim-vision',
    'sim-text-boon',
    'sim-text-plain',
    'sim-legacy-chat',
    'sim-embed',
    'sim-orpheus',
    'sim-qwen3-tts',
    'sim-whisper',
    'sim-parakeet',
  ])
    assert.ok(ids.includes(id), `${id} listed`)
  assert.not.ok(ids.includes('sim-retired-chat'), 'retired models are not listed')
})

test('retrieves a model, a family, and a model by its server name', async () => {
  const m = (await client.models.retrieve('sim-vision')) as unknown as Record<string, unknown>
  assert.is(m.id, 'sim-vision')
  assert.is(m.supports_vision, true)
  assert.equal(m.reasoning, { mode: 'mapped', levels: ['none', 'high'], default_level: 'none' })
  const f = (await client.models.retrieve('sim-chat')) as unknown as { family: { members: Record<string, string> } }
  assert.is(f.family.members.high, 'sim-chat-thinking')
  const byServer = await client.models.retrieve('sim-thinker-8b')
  assert.is(byServer.id, 'sim-chat-thinking')
  const deprecated = (await client.models.retrieve('sim-legacy-chat')) as unknown as Record<string, unknown>
  assert.is(deprecated.status, 'deprecated')
  assert.is(deprecated.replacement, 'sim-chat-instruct')
})

test("a reply's model maps back to the entry that answered: GET /models/<reply.model>", async () => {
  // sim-text-plain and sim-text-boon are the same kind of text model with other boons; each
  // must map back to itself, not to the other.
  for (const id of ['sim-text-plain', 'sim-text-boon', 'sim-chat-instruct', 'sim-vision']) {
    const reply = await client.chat.completions.create({
      model: id,
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 3,
    })
    const entry = (await client.models.retrieve(reply.model)) as unknown as { id: string; boons: string[] }
    assert.is(entry.id, id, `${id} answered as ${reply.model}`)
  }
  const plain = await client.chat.completions.create({
    model: 'sim-text-plain',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 3,
  })
  assert.is(plain.model, 'sim-text-3b-plain')
  const entry = (await client.models.retrieve(plain.model)) as unknown as { id: string; boons: string[] }
  assert.equal([entry.id, entry.boons], ['sim-text-plain', []])
})

test('an unknown model is the SDK NotFoundError with the spec message', async () => {
  try {
    await client.models.retrieve('no-such-model')
    assert.unreachable()
  } catch (err) {
    assert.instance(err, OpenAI.NotFoundError)
    assert.is((err as InstanceType<typeof OpenAI.NotFoundError>).message, '404 model no-such-model is not registered')
  }
})

test('a chat completion from the simulator', async () => {
  const res = await client.chat.completions.create({
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'Say hello' }],
    max_tokens: 20,
  })
  assert.is(res.object, 'chat.completion')
  assert.is(res.model, 'sim-instruct-8b', 'model names the server that answered')
  assert.type(res.choices[0]!.message.content, 'string')
  assert.ok(res.choices[0]!.message.content!.length > 0)
  assert.ok(res.usage!.completion_tokens > 0 && res.usage!.completion_tokens <= 20)
  assert.type(res.usage!.prompt_tokens_details?.cached_tokens, 'number')
})

test('a streamed completion with include_usage: content chunks, finish_reason, then usage', async () => {
  const stream = await client.chat.completions.create({
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'Tell me a story' }],
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: 30,
  })
  let text = ''
  let finish: string | null = null
  let usage: OpenAI.CompletionUsage | undefined | null
  let afterUsage = 0
  for await (const chunk of stream) {
    if (usage) afterUsage++
    if (chunk.choices[0]?.delta?.content) text += chunk.choices[0].delta.content
    if (chunk.choices[0]?.finish_reason) finish = chunk.choices[0].finish_reason
    if (chunk.usage) usage = chunk.usage
  }
  assert.ok(text.length > 0)
  assert.ok(finish === 'stop' || finish === 'length')
  assert.ok(usage && usage.total_tokens === usage.prompt_tokens + usage.completion_tokens)
  assert.is(afterUsage, 0, 'usage chunk is last')
})

test('without include_usage no chunk carries usage', async () => {
  const stream = await client.chat.completions.create({
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
  })
  let chunks = 0
  for await (const chunk of stream) {
    chunks++
    assert.not.ok(chunk.usage, 'no usage')
  }
  assert.ok(chunks > 1)
})

test('an upstream stream cut mid-way reaches the SDK as an error', async () => {
  const stream = await client.chat.completions.create(
    {
      model: 'sim-chat-instruct',
      messages: [{ role: 'user', content: 'a long answer please' }],
      stream: true,
      max_tokens: 50,
    },
    { headers: { 'x-sim-cut-after': '3' } },
  )
  let got = 0
  try {
    for await (const _ of stream) got++
    assert.unreachable('the stream should fail')
  } catch (err) {
    assert.instance(err, OpenAI.APIError)
  }
  assert.ok(got >= 1)
})

test('legacy completions: prompt in, text out', async () => {
  const res = await client.completions.create({
    model: 'sim-chat-instruct',
    prompt: 'Once upon a time',
    max_tokens: 10,
  })
  assert.type(res.choices[0]!.text, 'string')
  assert.ok(res.usage!.completion_tokens > 0)
})

test.run()
