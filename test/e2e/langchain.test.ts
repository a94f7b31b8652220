/**
 * LangChain JS end to end, over real sockets, with the simulator behind the gateway:
 * `ChatOpenAI` with `useResponsesApi` (the Responses API) and `ChatAnthropic` (the Messages
 * API): invoke, stream, `bindTools` with a tool round trip, `withStructuredOutput` with a zod
 * schema, and reasoning / thinking. Each request's door is read from its usage record, whose
 * tokens are the ones LangChain reports. (`OpenAIEmbeddings` is in embeddings.test.ts.)
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import Anthropic from '@anthropic-ai/sdk'
import { ChatOpenAI } from '@langchain/openai'
import { ChatAnthropic } from '@langchain/anthropic'
import { type AIMessage, type AIMessageChunk, HumanMessage, ToolMessage } from '@langchain/core/messages'
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { z } from 'zod'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { keysFile } from '../support/deployment-files.js'
import type { UsageRecord } from '../../kernel/contract/records.js'

const test = suite('e2e LangChain JS (ChatOpenAI with the Responses API, ChatAnthropic)')
let gw: TestGateway

/** One key per test, so each test reads its own usage records. */
const keyIds = [
  'oa-invoke',
  'oa-stream',
  'oa-tools',
  'oa-object',
  'oa-think',
  'an-invoke',
  'an-stream',
  'an-tools',
  'an-object',
  'an-think',
] as const
type KeyId = (typeof keyIds)[number]
const secret = (id: KeyId) => `sk-lc-${id}`

test.before(async () => {
  const keys = keysFile(
    {},
    keyIds.map((id) => ({ id, group: 'demo', secret: secret(id) })),
  )
  gw = await startTestGateway({ files: { 'config/keys.yaml': keys } })
})
test.after(() => gw.close())

const chatOpenAI = (id: KeyId, fields: ConstructorParameters<typeof ChatOpenAI>[0] = {}) =>
  new ChatOpenAI({
    model: 'sim-chat-instruct',
    apiKey: secret(id),
    configuration: { baseURL: `${gw.url}/v1` },
    useResponsesApi: true,
    maxRetries: 0,
    ...fields,
  })
// The Anthropic SDK underneath appends `/v1/messages` to this URL.
const chatAnthropic = (id: KeyId, fields: ConstructorParameters<typeof ChatAnthropic>[0] = {}) =>
  new ChatAnthropic({
    model: 'sim-chat-instruct',
    apiKey: secret(id),
    anthropicApiUrl: gw.url,
    maxTokens: 64,
    maxRetries: 0,
    ...fields,
  })

async function recordsOf(keyId: KeyId): Promise<UsageRecord[]> {
  await gw.generation().records.flush()
  const records = (await gw.generation().records.list({ from: 0, to: Date.now() + 1, keyId }, 100)) as UsageRecord[]
  return records.sort((a, b) => a.at - b.at)
}

/** A key's records: each through `route`, with the tokens of the matching message. */
async function assertRecords(keyId: KeyId, route: string, messages: AIMessage[]): Promise<UsageRecord[]> {
  const records = await recordsOf(keyId)
  assert.is(records.length, messages.length, `${messages.length} record(s) for ${keyId}`)
  records.forEach((r, i) => {
    const usage = messages[i]!.usage_metadata
    assert.ok(usage, 'usage_metadata')
    assert.equal([r.route, r.status, r.outcome, r.usageSource], [route, 200, 'done', 'reported'])
    assert.equal(
      [r.promptTokens, r.completionTokens, r.cachedTokens],
      [usage.input_tokens, usage.output_tokens, usage.input_token_details?.cache_read ?? 0],
    )
    assert.is(usage.total_tokens, usage.input_tokens + usage.output_tokens)
    assert.ok(r.promptTokens > 0 && r.completionTokens > 0)
  })
  return records
}

/** The chunks of a stream, merged as LangChain merges them; fails unless there were several. */
async function collect(stream: AsyncIterable<AIMessageChunk>): Promise<AIMessageChunk> {
  let merged: AIMessageChunk | undefined
  let chunks = 0
  for await (const chunk of stream) {
    merged = merged ? merged.concat(chunk) : chunk
    chunks++
  }
  assert.ok(merged && chunks > 2, 'streamed in pieces')
  return merged
}

const weather = { name: 'get_weather', description: 'Weather of a city', schema: z.object({ city: z.string() }) }
const person = z.object({ name: z.string(), age: z.number().int(), tags: z.array(z.string()) })
const askWeather = 'What is the weather in Paris? Use get_weather.'

/** bindTools: the call comes back, its result goes in as a ToolMessage, the answer quotes it. */
async function toolRoundTrip(model: BaseChatModel): Promise<AIMessage[]> {
  const bound = model.bindTools!([weather])
  const question = new HumanMessage(askWeather)
  const call = await bound.invoke([question])
  assert.is(call.tool_calls?.length, 1)
  const [toolCall] = call.tool_calls!
  assert.is(toolCall!.name, 'get_weather')
  weather.schema.parse(toolCall!.args)
  assert.type(toolCall!.id, 'string')
  const result = '{"temperature_c": 21}'
  const answer = await bound.invoke([question, call, new ToolMessage({ tool_call_id: toolCall!.id!, content: result })])
  assert.equal(answer.tool_calls, [])
  assert.ok(answer.text.startsWith(`The tool returned: ${result}`), 'the answer quotes the tool result')
  return [call, answer]
}

// --- ChatOpenAI with useResponsesApi -------------------------------------------------------------

test('ChatOpenAI (Responses API): invoke; the text is the stored response; usage as recorded', async () => {
  const message = await chatOpenAI('oa-invoke').invoke('Hello there')
  assert.ok(message.text.length > 0)
  assert.match(message.id ?? '', /^resp_/)
  assert.is(message.response_metadata.status, 'completed')
  await assertRecords('oa-invoke', 'responses', [message])
  const stored = await gw.openai(secret('oa-invoke')).responses.retrieve(message.id!)
  assert.is(stored.output_text, message.text)
})

test('ChatOpenAI (Responses API): stream: the chunks add up to the invoked text and its usage', async () => {
  const model = chatOpenAI('oa-stream')
  const streamed = await collect(await model.stream('Tell me something'))
  const invoked = await model.invoke('Tell me something')
  assert.ok(streamed.text.length > 0)
  assert.is(streamed.text, invoked.text)
  assert.equal(streamed.usage_metadata, invoked.usage_metadata)
  await assertRecords('oa-stream', 'responses', [streamed, invoked])
})

test('ChatOpenAI (Responses API): bindTools: a tool call, its result sent back, the answer; streamed tool calls too', async () => {
  const messages = await toolRoundTrip(chatOpenAI('oa-tools'))
  await assertRecords('oa-tools', 'responses', messages)
  const streamed = await collect(await chatOpenAI('oa-tools').bindTools([weather]).stream(askWeather))
  assert.equal(
    streamed.tool_calls?.map((c) => [c.name, c.args]),
    messages[0]!.tool_calls!.map((c) => [c.name, c.args]),
  )
})

test('ChatOpenAI (Responses API): withStructuredOutput with a zod schema: the object validates', async () => {
  const { parsed, raw } = await chatOpenAI('oa-object')
    .withStructuredOutput(person, { includeRaw: true })
    .invoke('Describe a person')
  assert.equal(person.parse(parsed), parsed)
  await assertRecords('oa-object', 'responses', [raw as AIMessage])
})

test('ChatOpenAI (Responses API): reasoning effort and summary: a reasoning item before the text', async () => {
  const message = await chatOpenAI('oa-think', {
    model: 'sim-chat-thinking',
    reasoning: { effort: 'low', summary: 'auto' },
  }).invoke('Think it over')
  const reasoning = message.additional_kwargs.reasoning as
    | { type: string; summary: { type: string; text: string }[] }
    | undefined
  assert.is(reasoning?.type, 'reasoning')
  assert.ok(reasoning!.summary.length > 0 && reasoning!.summary[0]!.text.length > 0, 'a summary')
  assert.ok(message.text.length > 0)
  const [record] = await assertRecords('oa-think', 'responses', [message])
  assert.is(record!.model, 'sim-chat-thinking')
})

// --- ChatAnthropic -------------------------------------------------------------------------------

test('ChatAnthropic: invoke; the text is what the official SDK gets; usage as recorded', async () => {
  const message = await chatAnthropic('an-invoke').invoke('Hello there')
  assert.ok(message.text.length > 0)
  assert.match(message.id ?? '', /^msg_/)
  assert.ok(['end_turn', 'max_tokens'].includes(message.response_metadata.stop_reason as string))
  await assertRecords('an-invoke', 'messages', [message])
  const official = new Anthropic({ apiKey: secret('an-invoke'), baseURL: gw.url, maxRetries: 0 })
  const same = await official.messages.create({
    model: 'sim-chat-instruct',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'Hello there' }],
  })
  assert.is(message.text, same.content.map((b) => (b.type === 'text' ? b.text : '')).join(''))
})

test('ChatAnthropic: stream: the chunks add up to the invoked text and its usage', async () => {
  const model = chatAnthropic('an-stream')
  const streamed = await collect(await model.stream('Tell me something'))
  const invoked = await model.invoke('Tell me something')
  assert.ok(streamed.text.length > 0)
  assert.is(streamed.text, invoked.text)
  assert.equal(
    [streamed.usage_metadata?.input_tokens, streamed.usage_metadata?.output_tokens],
    [invoked.usage_metadata?.input_tokens, invoked.usage_metadata?.output_tokens],
  )
  await assertRecords('an-stream', 'messages', [streamed, invoked])
})

test('ChatAnthropic: bindTools: a tool call, its result sent back, the answer; streamed tool calls too', async () => {
  const messages = await toolRoundTrip(chatAnthropic('an-tools'))
  await assertRecords('an-tools', 'messages', messages)
  const streamed = await collect(await chatAnthropic('an-tools').bindTools([weather]).stream(askWeather))
  assert.equal(
    streamed.tool_calls?.map((c) => [c.name, c.args]),
    messages[0]!.tool_calls!.map((c) => [c.name, c.args]),
  )
})

test('ChatAnthropic: withStructuredOutput with a zod schema: the object validates', async () => {
  const { parsed, raw } = await chatAnthropic('an-object', { maxTokens: 256 })
    .withStructuredOutput(person, { includeRaw: true })
    .invoke('Describe a person')
  assert.equal(person.parse(parsed), parsed)
  await assertRecords('an-object', 'messages', [raw as AIMessage])
})

test('ChatAnthropic: thinking: a signed thinking block, sent back with a tool round trip', async () => {
  const model = chatAnthropic('an-think', {
    model: 'sim-chat-thinking',
    maxTokens: 2048,
    thinking: { type: 'enabled', budget_tokens: 1024 },
  })
  const [call, answer] = await toolRoundTrip(model)
  const blocks = call!.content as { type: string; thinking?: string; signature?: string }[]
  assert.is(blocks[0]!.type, 'thinking')
  assert.ok(blocks[0]!.thinking!.length > 0)
  assert.type(blocks[0]!.signature, 'string')
  assert.ok(answer!.text.length > 0)
  const records = await assertRecords('an-think', 'messages', [call!, answer!])
  assert.equal(
    records.map((r) => r.model),
    ['sim-chat-thinking', 'sim-chat-thinking'],
  )
})

test.run()
