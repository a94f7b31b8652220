/**
 * The Vercel AI SDK (`ai` 6) end to end, over real sockets, with the simulator behind the
 * gateway: its default OpenAI provider (which speaks the Responses API), the same provider's
 * chat-completions model for contrast, and its Anthropic provider (the Messages API).
 * `generateText`, `streamText`, a tool the SDK runs itself in a multi-step loop, `generateObject`
 * with a zod schema, and reasoning. Each request's door is read from its usage record, whose
 * tokens are the ones the SDK reports. The simulator is deterministic, so the text a client
 * shows is compared with what the same request gets through the official SDK.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import Anthropic from '@anthropic-ai/sdk'
import {
  generateObject,
  generateText,
  stepCountIs,
  streamText,
  tool,
  type LanguageModel,
  type LanguageModelUsage,
  type TextStreamPart,
  type ToolSet,
} from 'ai'
import { createOpenAI } from '@ai-sdk/openai'
import { createAnthropic } from '@ai-sdk/anthropic'
import { z } from 'zod'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { keysFile } from '../support/deployment-files.js'
import type { UsageRecord } from '../../kernel/contract/records.js'

const test = suite('e2e the Vercel AI SDK (OpenAI and Anthropic providers)')
let gw: TestGateway

/** One key per test, so each test reads its own usage records. */
const keyIds = [
  'oa-text',
  'oa-stream',
  'oa-tools',
  'oa-object',
  'oa-think',
  'oa-zdr',
  'oa-chat',
  'an-text',
  'an-stream',
  'an-tools',
  'an-object',
  'an-think',
  'official',
] as const
type KeyId = (typeof keyIds)[number]
const secret = (id: KeyId) => `sk-ai-${id}`

test.before(async () => {
  const keys = keysFile(
    {},
    keyIds.map((id) => ({ id, group: 'demo', secret: secret(id) })),
  )
  gw = await startTestGateway({ files: { 'config/keys.yaml': keys } })
})
test.after(() => gw.close())

const openai = (id: KeyId) => createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: secret(id) })
// The Anthropic provider appends `/messages` to its base URL, whose default ends in `/v1`.
const anthropic = (id: KeyId) => createAnthropic({ baseURL: `${gw.url}/v1`, apiKey: secret(id) })
const officialOpenAI = () => gw.openai(secret('official'))
const officialAnthropic = () => new Anthropic({ apiKey: secret('official'), baseURL: gw.url, maxRetries: 0 })

async function recordsOf(keyId: KeyId): Promise<UsageRecord[]> {
  await gw.generation().records.flush()
  const records = (await gw.generation().records.list({ from: 0, to: Date.now() + 1, keyId }, 100)) as UsageRecord[]
  return records.sort((a, b) => a.at - b.at)
}

/** The one record of a key: its door, and the tokens the SDK reported. */
async function assertOneRecord(keyId: KeyId, route: string, usage: LanguageModelUsage): Promise<UsageRecord> {
  const records = await recordsOf(keyId)
  assert.is(records.length, 1, `one record for ${keyId}`)
  const r = records[0]!
  assert.equal([r.route, r.status, r.outcome, r.usageSource], [route, 200, 'done', 'reported'])
  assert.equal(
    [r.promptTokens, r.completionTokens, r.cachedTokens],
    [usage.inputTokens, usage.outputTokens, usage.inputTokenDetails.cacheReadTokens],
  )
  assert.ok(r.promptTokens > 0 && r.completionTokens > 0)
  return r
}

/** Every part of a streamed result, failing on an error part (which `textStream` would hide). */
async function drain<T extends ToolSet>(parts: AsyncIterable<TextStreamPart<T>>): Promise<string[]> {
  const types: string[] = []
  for await (const part of parts) {
    if (part.type === 'error') throw new Error(`an error part in the stream: ${String(part.error)}`)
    types.push(part.type)
  }
  return types
}

const weather = tool({
  description: 'Weather of a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, temperature_c: 21 }),
})
const person = z.object({ name: z.string(), age: z.number().int(), tags: z.array(z.string()) })

/** What the simulator answers to a tool result: it quotes its first 40 characters. */
const quoteOf = (result: unknown) => `The tool returned: ${Array.from(JSON.stringify(result)).slice(0, 40).join('')}`

/** A two-step tool loop: the model calls `weather`, the SDK runs it and sends the result back. */
async function toolLoop(model: LanguageModel) {
  const result = await generateText({
    model,
    prompt: 'What is the weather in Paris? Use the weather tool.',
    tools: { weather },
    stopWhen: stepCountIs(3),
    maxOutputTokens: 200,
    maxRetries: 0,
  })
  assert.is(result.steps.length, 2)
  const [call, answer] = result.steps as [(typeof result.steps)[number], (typeof result.steps)[number]]
  assert.is(call.finishReason, 'tool-calls')
  assert.is(call.toolCalls.length, 1)
  assert.is(call.toolCalls[0]!.toolName, 'weather')
  const input = z.object({ city: z.string() }).parse(call.toolCalls[0]!.input)
  assert.equal(call.toolResults[0]!.output, { city: input.city, temperature_c: 21 })
  assert.equal(answer.toolCalls, [])
  assert.ok(
    result.text.startsWith(quoteOf(call.toolResults[0]!.output)),
    'the final text quotes the tool result the SDK sent back',
  )
  assert.ok(result.text.length > quoteOf(call.toolResults[0]!.output).length)
  return result
}

// --- the OpenAI provider's default model: the Responses API -------------------------------------

test('openai(): generateText goes through /v1/responses; the text is the stored response', async () => {
  const result = await generateText({
    model: openai('oa-text')('sim-chat-instruct'),
    prompt: 'Hello there',
    maxRetries: 0,
  })
  assert.ok(result.text.length > 0)
  assert.is(result.finishReason, 'stop')
  assert.equal(result.warnings, [])
  await assertOneRecord('oa-text', 'responses', result.usage)
  assert.is(result.usage.totalTokens, result.usage.inputTokens! + result.usage.outputTokens!)
  // Stored by default, under its key: the official SDK reads back the same text by the id the SDK saw.
  const id = (result.providerMetadata?.openai as { responseId?: string } | undefined)?.responseId
  assert.match(id ?? '', /^resp_/)
  const stored = await gw.openai(secret('oa-text')).responses.retrieve(id!)
  assert.is(stored.output_text, result.text)
})

test('openai(): streamText: many deltas adding up to what the same request gets unstreamed; usage as recorded', async () => {
  const model = openai('oa-stream')('sim-chat-instruct')
  const result = streamText({ model, prompt: 'Tell me something', maxRetries: 0 })
  let text = ''
  let deltas = 0
  for await (const delta of result.textStream) {
    text += delta
    deltas++
  }
  assert.ok(deltas > 1, 'streamed in pieces')
  assert.is(await result.finishReason, 'stop')
  const usage = await result.usage
  await assertOneRecord('oa-stream', 'responses', usage)
  const whole = await officialOpenAI().responses.create({
    model: 'sim-chat-instruct',
    input: [{ role: 'user', content: [{ type: 'input_text', text: 'Tell me something' }] }],
  })
  assert.is(text, whole.output_text)
  assert.is(usage.outputTokens, whole.usage!.output_tokens)
})

test('openai(): a tool the SDK runs, in a multi-step loop; streamed the same way', async () => {
  const result = await toolLoop(openai('oa-tools')('sim-chat-instruct'))
  const records = await recordsOf('oa-tools')
  assert.equal(
    records.map((r) => r.route),
    ['responses', 'responses'],
  )
  assert.equal(
    records.map((r) => [r.promptTokens, r.completionTokens]),
    result.steps.map((s) => [s.usage.inputTokens, s.usage.outputTokens]),
  )

  const streamed = streamText({
    model: openai('oa-tools')('sim-chat-instruct'),
    prompt: 'What is the weather in Paris? Use the weather tool.',
    tools: { weather },
    stopWhen: stepCountIs(3),
    maxOutputTokens: 200,
    maxRetries: 0,
  })
  const types = await drain(streamed.fullStream)
  for (const type of ['tool-input-start', 'tool-input-delta', 'tool-call', 'tool-result', 'text-delta'])
    assert.ok(types.includes(type), type)
  assert.is(await streamed.text, result.text)
  assert.equal((await streamed.totalUsage).outputTokens, result.totalUsage.outputTokens)
})

test('openai(): generateObject with a zod schema: the object validates', async () => {
  const result = await generateObject({
    model: openai('oa-object')('sim-chat-instruct'),
    schema: person,
    prompt: 'Describe a person',
    maxRetries: 0,
  })
  assert.equal(person.parse(result.object), result.object)
  assert.is(result.finishReason, 'stop')
  await assertOneRecord('oa-object', 'responses', result.usage)
})

test('openai(): reasoning: the summary arrives as reasoning, the level as asked', async () => {
  // The provider sends reasoning options only to models it knows reason; forceReasoning says this one does.
  const providerOptions = { openai: { forceReasoning: true, reasoningEffort: 'low', reasoningSummary: 'auto' } }
  const result = await generateText({
    model: openai('oa-think')('sim-chat-thinking'),
    prompt: 'Think it over',
    providerOptions,
    maxRetries: 0,
  })
  assert.equal(result.warnings, [])
  assert.ok((result.reasoningText ?? '').length > 0, 'reasoning text')
  assert.ok(result.text.length > 0)
  assert.is(result.response.headers?.['x-gateway-reasoning-effort'], 'low')
  await assertOneRecord('oa-think', 'responses', result.usage)
})

test('openai(): store false: reasoning comes with encrypted_content and goes back with it through a tool loop', async () => {
  // Nothing kept at the server: the SDK asks for include reasoning.encrypted_content and sends
  // each reasoning item back whole; one without it would be dropped with a warning.
  const providerOptions = {
    openai: { store: false, forceReasoning: true, reasoningEffort: 'low', reasoningSummary: 'auto' },
  }
  for (const stream of [false, true]) {
    const options = {
      model: openai('oa-zdr')('sim-chat-thinking'),
      prompt: 'What is the weather in Paris? Use the weather tool.',
      tools: { weather },
      stopWhen: stepCountIs(3),
      providerOptions,
      maxRetries: 0,
    }
    const steps = stream ? await streamText(options).steps : (await generateText(options)).steps
    assert.equal(
      steps.map((s) => s.finishReason),
      ['tool-calls', 'stop'],
    )
    assert.equal(
      steps.flatMap((s) => s.warnings),
      [],
      'no warnings',
    )
    const reasoning = steps[0]!.content.find((c) => c.type === 'reasoning')!
    const token = (reasoning.providerMetadata?.openai as { reasoningEncryptedContent?: unknown } | undefined)
      ?.reasoningEncryptedContent
    assert.type(token, 'string')
    const body = steps[1]!.request.body
    const sent = (typeof body === 'string' ? JSON.parse(body) : body) as {
      store: boolean
      include: string[]
      input: { type?: string; encrypted_content?: string }[]
    }
    assert.equal([sent.store, sent.include], [false, ['reasoning.encrypted_content']])
    assert.equal(
      sent.input.filter((i) => i.type === 'reasoning').map((i) => i.encrypted_content),
      [token],
    )
  }
  const records = await recordsOf('oa-zdr')
  assert.is(records.length, 4)
  assert.ok(records.every((r) => r.route === 'responses' && r.status === 200))
})

test('openai.chat(): the chat-completions model goes through /v1/chat/completions', async () => {
  const result = await generateText({
    model: openai('oa-chat').chat('sim-chat-instruct'),
    prompt: 'Hello there',
    maxRetries: 0,
  })
  assert.ok(result.text.length > 0)
  await assertOneRecord('oa-chat', 'chat', result.usage)
  const same = await officialOpenAI().chat.completions.create({
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'Hello there' }],
  })
  assert.is(result.text, same.choices[0]!.message.content)
})

// --- the Anthropic provider: the Messages API ------------------------------------------------------

test('anthropic(): generateText goes through /v1/messages; the text is what the official SDK gets', async () => {
  const result = await generateText({
    model: anthropic('an-text')('sim-chat-instruct'),
    prompt: 'Hello there',
    maxOutputTokens: 64,
    maxRetries: 0,
  })
  assert.ok(result.text.length > 0)
  assert.ok(['stop', 'length'].includes(result.finishReason))
  assert.equal(result.warnings, [])
  assert.is(result.response.modelId, 'sim-chat-instruct')
  await assertOneRecord('an-text', 'messages', result.usage)
  const same = await officialAnthropic().messages.create({
    model: 'sim-chat-instruct',
    max_tokens: 64,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello there' }] }],
  })
  assert.is(result.text, same.content.map((b) => (b.type === 'text' ? b.text : '')).join(''))
  assert.is(result.usage.outputTokens, same.usage.output_tokens)
})

test('anthropic(): streamText: many deltas adding up to the unstreamed text; usage as recorded', async () => {
  const model = anthropic('an-stream')('sim-chat-instruct')
  const result = streamText({ model, prompt: 'Tell me something', maxOutputTokens: 64, maxRetries: 0 })
  let text = ''
  let deltas = 0
  for await (const delta of result.textStream) {
    text += delta
    deltas++
  }
  assert.ok(deltas > 1, 'streamed in pieces')
  const usage = await result.usage
  await assertOneRecord('an-stream', 'messages', usage)
  const whole = await generateText({
    model: anthropic('official')('sim-chat-instruct'),
    prompt: 'Tell me something',
    maxOutputTokens: 64,
    maxRetries: 0,
  })
  assert.is(text, whole.text)
  assert.equal([usage.inputTokens, usage.outputTokens], [whole.usage.inputTokens, whole.usage.outputTokens])
})

test('anthropic(): a tool the SDK runs, in a multi-step loop; streamed the same way', async () => {
  const result = await toolLoop(anthropic('an-tools')('sim-chat-instruct'))
  const records = await recordsOf('an-tools')
  assert.equal(
    records.map((r) => r.route),
    ['messages', 'messages'],
  )
  assert.equal(
    records.map((r) => [r.promptTokens, r.completionTokens]),
    result.steps.map((s) => [s.usage.inputTokens, s.usage.outputTokens]),
  )

  const streamed = streamText({
    model: anthropic('an-tools')('sim-chat-instruct'),
    prompt: 'What is the weather in Paris? Use the weather tool.',
    tools: { weather },
    stopWhen: stepCountIs(3),
    maxOutputTokens: 200,
    maxRetries: 0,
  })
  const types = await drain(streamed.fullStream)
  for (const type of ['tool-input-start', 'tool-input-delta', 'tool-call', 'tool-result', 'text-delta'])
    assert.ok(types.includes(type), type)
  assert.is(await streamed.text, result.text)
})

test('anthropic(): generateObject with a zod schema: the object validates', async () => {
  const result = await generateObject({
    model: anthropic('an-object')('sim-chat-instruct'),
    schema: person,
    prompt: 'Describe a person',
    maxOutputTokens: 256,
    maxRetries: 0,
  })
  assert.equal(person.parse(result.object), result.object)
  assert.equal(result.warnings, [])
  await assertOneRecord('an-object', 'messages', result.usage)
})

test('anthropic(): thinking: a signed thinking block, sent back in a tool loop', async () => {
  const providerOptions = { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } }
  const result = await generateText({
    model: anthropic('an-think')('sim-chat-thinking'),
    prompt: 'What is the weather in Paris? Use the weather tool.',
    tools: { weather },
    stopWhen: stepCountIs(3),
    maxOutputTokens: 400,
    providerOptions,
    maxRetries: 0,
  })
  assert.equal(
    result.steps.map((s) => s.finishReason),
    ['tool-calls', 'stop'],
  )
  const thinking = result.steps[0]!.content.find((c) => c.type === 'reasoning')
  assert.ok(thinking && thinking.text.length > 0, 'a thinking block before the call')
  assert.type((thinking.providerMetadata?.anthropic as { signature?: unknown } | undefined)?.signature, 'string')
  assert.ok(result.text.startsWith(quoteOf(result.steps[0]!.toolResults[0]!.output)))
  assert.is(result.response.headers?.['x-gateway-reasoning-effort'], 'low')
  const records = await recordsOf('an-think')
  assert.equal(
    records.map((r) => [r.route, r.model]),
    [
      ['messages', 'sim-chat-thinking'],
      ['messages', 'sim-chat-thinking'],
    ],
  )
})

test.run()
