/**
 * A whole completion and its stream, both ways, for the two OpenAI shapes: chat
 * (`chat.completion` / `chat.completion.chunk`) and legacy text (`text_completion`, streamed
 * under the same object name). `CompletionAssembler` puts a finished stream back together as
 * the whole completion a non-streamed request would have got; `completionChunks` streams a
 * whole completion as a server would (role, content, finish, then usage when asked). Pure.
 */
import type { StreamEvent } from '../../kernel/contract/index.js'
import { addToolCallDelta, type StreamedToolCall, type ToolCallDelta } from './streamed-tool-calls.js'

type Json = Record<string, unknown>

/** Top-level fields of a chunk that a whole completion carries too (the first value seen is kept). */
const HEAD_FIELDS = ['id', 'created', 'model', 'system_fingerprint', 'service_tier'] as const

interface ChatChoice {
  role: string
  /** Text fields of the message (`content`, `reasoning`, `refusal` …), concatenated. */
  text: Map<string, string>
  toolCalls: StreamedToolCall[]
  /** Logprob arrays by field (`content`, `refusal`), concatenated. */
  logprobs: Map<string, unknown[]> | undefined
  finishReason: string | undefined
}

interface TextChoice {
  text: string
  /** Logprob arrays by field (`tokens`, `token_logprobs`, `top_logprobs`, `text_offset`), concatenated. */
  logprobs: Map<string, unknown[]> | undefined
  finishReason: string | undefined
}

/**
 * Puts the chunks of one stream back together. `push` every chunk in order; `completion()` then
 * gives the whole completion, or undefined when the stream cannot be told back as one: a choice
 * without its finish, or a delta field it does not know how to join (it never guesses).
 */
export class CompletionAssembler {
  private kind: 'chat' | 'text' | undefined
  private readonly head: Json = {}
  private readonly chat = new Map<number, ChatChoice>()
  private readonly text = new Map<number, TextChoice>()
  private usage: unknown
  private broken = false

  push(chunk: StreamEvent): void {
    if (this.broken) return
    for (const field of HEAD_FIELDS)
      if (this.head[field] === undefined && chunk[field] != null) this.head[field] = chunk[field]
    if (chunk.usage != null) this.usage = chunk.usage
    const choices = chunk.choices
    if (choices === undefined || choices === null) return
    if (!Array.isArray(choices)) return void (this.broken = true)
    for (const c of choices as Json[]) {
      const index = typeof c.index === 'number' ? c.index : 0
      if (c.delta !== undefined) this.pushChat(index, c)
      else if (typeof c.text === 'string') this.pushText(index, c)
      else this.broken = true
    }
  }

  /** The whole completion, or undefined (see the class). `usage` stands in when the stream carried none. */
  completion(usage?: Json): Json | undefined {
    if (this.broken || this.kind === undefined) return undefined
    const finishes = this.kind === 'chat' ? [...this.chat.values()] : [...this.text.values()]
    if (finishes.some((c) => c.finishReason === undefined)) return undefined
    const choices =
      this.kind === 'chat'
        ? [...this.chat.entries()].sort(([a], [b]) => a - b).map(([index, c]) => chatChoice(index, c))
        : [...this.text.entries()].sort(([a], [b]) => a - b).map(([index, c]) => textChoice(index, c))
    const body: Json = {
      id: this.head.id,
      object: this.kind === 'chat' ? 'chat.completion' : 'text_completion',
      created: this.head.created,
      model: this.head.model,
      choices,
    }
    for (const field of ['system_fingerprint', 'service_tier'] as const)
      if (this.head[field] !== undefined) body[field] = this.head[field]
    const used = this.usage ?? usage
    if (used !== undefined) body.usage = used
    return body
  }

  private pushChat(index: number, c: Json): void {
    if (this.kind === 'text') return void (this.broken = true)
    this.kind = 'chat'
    let choice = this.chat.get(index)
    if (!choice) {
      choice = { role: 'assistant', text: new Map(), toolCalls: [], logprobs: undefined, finishReason: undefined }
      this.chat.set(index, choice)
    }
    const delta = c.delta
    if (delta !== null && typeof delta === 'object') {
      for (const [field, value] of Object.entries(delta as Json)) {
        if (value === null || value === undefined) continue
        if (field === 'role' && typeof value === 'string') choice.role = value
        else if (field === 'tool_calls' && Array.isArray(value))
          for (const part of value as ToolCallDelta[]) addToolCallDelta(choice.toolCalls, part)
        else if (typeof value === 'string') {
          // The role chunk's `content: ""` says nothing yet: a message of tool calls only has null content.
          if (value !== '') choice.text.set(field, (choice.text.get(field) ?? '') + value)
        } else this.broken = true
      }
    }
    choice.logprobs = joinLogprobs(choice.logprobs, c.logprobs, () => (this.broken = true))
    if (typeof c.finish_reason === 'string') choice.finishReason = c.finish_reason
  }

  private pushText(index: number, c: Json): void {
    if (this.kind === 'chat') return void (this.broken = true)
    this.kind = 'text'
    let choice = this.text.get(index)
    if (!choice) this.text.set(index, (choice = { text: '', logprobs: undefined, finishReason: undefined }))
    choice.text += c.text as string
    choice.logprobs = joinLogprobs(choice.logprobs, c.logprobs, () => (this.broken = true))
    if (typeof c.finish_reason === 'string') choice.finishReason = c.finish_reason
  }
}

/** Logprobs of one more chunk, joined field by field (each field an array); anything else breaks. */
function joinLogprobs(
  sum: Map<string, unknown[]> | undefined,
  more: unknown,
  broken: () => void,
): Map<string, unknown[]> | undefined {
  if (more === null || more === undefined) return sum
  if (typeof more !== 'object') return (broken(), sum)
  const joined = sum ?? new Map<string, unknown[]>()
  for (const [field, value] of Object.entries(more as Json)) {
    if (value === null || value === undefined) continue
    if (!Array.isArray(value)) return (broken(), sum)
    const arr = joined.get(field)
    if (arr) arr.push(...(value as unknown[]))
    else joined.set(field, [...(value as unknown[])])
  }
  return joined
}

function chatChoice(index: number, c: ChatChoice): Json {
  const message: Json = { role: c.role, content: c.text.get('content') ?? null }
  for (const [field, value] of c.text) if (field !== 'content') message[field] = value
  if (c.toolCalls.length > 0) message.tool_calls = c.toolCalls.filter((call) => call !== undefined)
  return {
    index,
    message,
    logprobs: c.logprobs ? Object.fromEntries(c.logprobs) : null,
    finish_reason: c.finishReason,
  }
}

function textChoice(index: number, c: TextChoice): Json {
  return {
    index,
    text: c.text,
    logprobs: c.logprobs ? Object.fromEntries(c.logprobs) : null,
    finish_reason: c.finishReason,
  }
}

/**
 * A whole completion (chat or text) as the chunks of its stream: per choice, for chat, the
 * role, then the message's content (with its tool calls and logprobs), then the finish; for
 * text, the text with its logprobs, then the finish. The usage chunk (`choices: []`) last, when
 * `includeUsage` and the completion has usage.
 */
export function completionChunks(completion: Json, includeUsage: boolean): StreamEvent[] {
  const chat = completion.object !== 'text_completion'
  const head: Json = {
    id: completion.id,
    object: chat ? 'chat.completion.chunk' : 'text_completion',
    created: completion.created,
    model: completion.model,
  }
  if (completion.system_fingerprint !== undefined) head.system_fingerprint = completion.system_fingerprint
  const chunks: StreamEvent[] = []
  const choices = Array.isArray(completion.choices) ? (completion.choices as Json[]) : []
  for (const c of choices) {
    const index = typeof c.index === 'number' ? c.index : 0
    const logprobs = c.logprobs ?? null
    if (chat) {
      const { role, content, tool_calls: toolCalls, ...rest } = (c.message ?? {}) as Json
      chunks.push({
        ...head,
        choices: [{ index, delta: { role: role ?? 'assistant', content: '' }, logprobs: null, finish_reason: null }],
      })
      const delta: Json = {}
      for (const [field, value] of Object.entries(rest)) if (value !== null && value !== undefined) delta[field] = value
      if (typeof content === 'string' && content !== '') delta.content = content
      if (Array.isArray(toolCalls) && toolCalls.length > 0)
        delta.tool_calls = (toolCalls as Json[]).map((call, i) => ({ index: i, ...call }))
      if (Object.keys(delta).length > 0 || logprobs !== null)
        chunks.push({ ...head, choices: [{ index, delta, logprobs, finish_reason: null }] })
      chunks.push({
        ...head,
        choices: [{ index, delta: {}, logprobs: null, finish_reason: c.finish_reason ?? 'stop' }],
      })
    } else {
      chunks.push({ ...head, choices: [{ index, text: c.text ?? '', logprobs, finish_reason: null }] })
      chunks.push({ ...head, choices: [{ index, text: '', logprobs: null, finish_reason: c.finish_reason ?? 'stop' }] })
    }
  }
  if (includeUsage && completion.usage != null) chunks.push({ ...head, choices: [], usage: completion.usage })
  return chunks
}
