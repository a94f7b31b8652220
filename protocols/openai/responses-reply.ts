/**
 * A chat completion as a Response object: the reasoning (as a reasoning item whose summary is
 * the model's thinking), the answer (a message item with one output_text part), each tool call
 * (a function_call item), the status (`incomplete` when the reply hit its length limit) and the
 * usage in the Responses shape, with the request's settings echoed as OpenAI echoes them.
 */
import { createHash } from 'node:crypto'
import { itemId } from './responses-ids.js'
import type {
  Json,
  OutputFunctionCall,
  OutputItem,
  OutputMessage,
  ReasoningItem,
  ResponseObject,
  ResponsesRequest,
  ResponseStatus,
  ResponseUsage,
} from './responses-types.js'

/** What the Response echoes and is named by, known before the model answers. */
export interface ResponseContext {
  readonly id: string
  /** Epoch seconds. */
  readonly createdAt: number
  readonly request: ResponsesRequest
  readonly store: boolean
}

/** The usage a chat model server reports, as far as a Response needs it. */
export interface ChatUsage {
  prompt_tokens?: number
  completion_tokens?: number
  total_tokens?: number
  prompt_tokens_details?: { cached_tokens?: number } | null
  completion_tokens_details?: { reasoning_tokens?: number } | null
}

/** The Response before any output: what `response.created` carries. */
export function responseSkeleton(ctx: ResponseContext, model: string): ResponseObject {
  const req = ctx.request
  return {
    id: ctx.id,
    object: 'response',
    created_at: ctx.createdAt,
    status: 'in_progress',
    background: false,
    error: null,
    incomplete_details: null,
    instructions: typeof req.instructions === 'string' ? req.instructions : null,
    max_output_tokens: typeof req.max_output_tokens === 'number' ? req.max_output_tokens : null,
    model,
    output: [],
    parallel_tool_calls: req.parallel_tool_calls ?? true,
    previous_response_id: req.previous_response_id ?? null,
    reasoning: { effort: req.reasoning?.effort ?? null, summary: req.reasoning?.summary ?? null },
    store: ctx.store,
    temperature: req.temperature ?? null,
    text: { format: req.text?.format ?? { type: 'text' } },
    tool_choice: req.tool_choice ?? 'auto',
    tools: req.tools ?? [],
    top_p: req.top_p ?? null,
    truncation: 'disabled',
    usage: null,
    ...(typeof req.user === 'string' ? { user: req.user } : {}),
    metadata: req.metadata ?? {},
  }
}

export function responseUsage(usage: ChatUsage | null | undefined): ResponseUsage | null {
  if (!usage) return null
  const input = usage.prompt_tokens ?? 0
  const output = usage.completion_tokens ?? 0
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens ?? input + output,
  }
}

/** A chat finish reason as a Response status: `length` is OpenAI's `max_output_tokens` incompleteness. */
export function statusOf(finishReason: unknown): {
  status: ResponseStatus
  incomplete_details: ResponseObject['incomplete_details']
} {
  if (finishReason === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }
  if (finishReason === 'content_filter')
    return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } }
  return { status: 'completed', incomplete_details: null }
}

/**
 * Whether reasoning items carry `encrypted_content`. Clients that keep nothing at OpenAI
 * (`store: false`) ask for it, and send a reasoning item back only with it: the Vercel AI SDK
 * drops one without it and warns on every step.
 */
export function includesEncryptedReasoning(request: ResponsesRequest): boolean {
  return Array.isArray(request.include) && request.include.includes('reasoning.encrypted_content')
}

/**
 * The `encrypted_content` of a reasoning item. OpenAI's is the model's reasoning, encrypted,
 * decrypted when sent back. The gateway sends no reasoning to a model, so nothing reads it:
 * the SHA-256 of the reasoning text (base64), opaque, stable for the same text, claiming nothing more.
 */
export function reasoningToken(text: string): string {
  return createHash('sha256').update(text).digest('base64')
}

/** A reasoning item; `encrypted` adds its `encrypted_content` (a finished item only). */
export function reasoningItem(
  responseId: string,
  index: number,
  text: string,
  status: ReasoningItem['status'] = 'completed',
  encrypted = false,
): ReasoningItem {
  const item: ReasoningItem = {
    id: itemId(responseId, 'rs', index),
    type: 'reasoning',
    summary: text === '' ? [] : [{ type: 'summary_text', text }],
    status,
  }
  if (encrypted) item.encrypted_content = reasoningToken(text)
  return item
}

export function messageItem(
  responseId: string,
  index: number,
  text: string,
  status: OutputMessage['status'],
): OutputMessage {
  return {
    id: itemId(responseId, 'msg', index),
    type: 'message',
    role: 'assistant',
    status,
    content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
  }
}

export function functionCallItem(
  responseId: string,
  index: number,
  callId: string,
  name: string,
  args: string,
  status: OutputFunctionCall['status'],
): OutputFunctionCall {
  return { id: itemId(responseId, 'fc', index), type: 'function_call', call_id: callId, name, arguments: args, status }
}

interface ChatMessageOut {
  content?: string | null
  reasoning?: string | null
  tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[] | null
}

/** The output items of one chat choice, in OpenAI's order: reasoning, the message, the calls. */
export function outputOf(
  responseId: string,
  message: ChatMessageOut,
  incomplete: boolean,
  encryptedReasoning = false,
): OutputItem[] {
  const items: OutputItem[] = []
  if (typeof message.reasoning === 'string' && message.reasoning !== '')
    items.push(reasoningItem(responseId, items.length, message.reasoning, 'completed', encryptedReasoning))
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : []
  const text = typeof message.content === 'string' ? message.content : ''
  // Tool calls alone, or thinking that used the whole allowance, make no message item; a reply
  // of nothing at all still has an (empty) one.
  if (text !== '' || (calls.length === 0 && items.length === 0))
    items.push(messageItem(responseId, items.length, text, incomplete ? 'incomplete' : 'completed'))
  for (const call of calls) {
    items.push(
      functionCallItem(
        responseId,
        items.length,
        call.id ?? itemId(responseId, 'fc', items.length),
        call.function?.name ?? '',
        call.function?.arguments ?? '',
        incomplete ? 'incomplete' : 'completed',
      ),
    )
  }
  return items
}

/** A whole chat completion (`chat.completion`) as a finished Response. */
export function fromChatCompletion(ctx: ResponseContext, completion: Json, completedAt: number): ResponseObject {
  const choice = (Array.isArray(completion.choices) ? completion.choices[0] : undefined) as
    | { message?: ChatMessageOut; finish_reason?: unknown }
    | undefined
  const { status, incomplete_details } = statusOf(choice?.finish_reason)
  const response = responseSkeleton(
    ctx,
    typeof completion.model === 'string' ? completion.model : (ctx.request.model ?? ''),
  )
  response.status = status
  response.incomplete_details = incomplete_details
  response.output = outputOf(
    ctx.id,
    choice?.message ?? {},
    status === 'incomplete',
    includesEncryptedReasoning(ctx.request),
  )
  response.usage = responseUsage(completion.usage as ChatUsage | undefined)
  response.completed_at = status === 'completed' ? completedAt : null
  return response
}
