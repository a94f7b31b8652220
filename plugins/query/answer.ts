/**
 * Asks the answer route (chat with boons, in-process) and reads its reply: the text, any
 * function calls, and the finish reason. A model server's error passes through with its status
 * and message. The request's structured-output settings become the chat request's
 * `response_format`: the caller's JSON schema (`model_params.response_format`), or a JSON
 * object for the top-level `response_format: {type: "json"}`.
 */
import {
  GatewayError,
  type CallOptions,
  type CallResult,
  type Principal,
  type Reply,
} from '../../kernel/contract/index.js'
import type { ModelParams } from '../../schemas/query-request.schema.js'
import type { ChatMessage } from '../../protocols/query/prompt.js'
import type { ResponseType } from './params.js'

export type RouteCall = (routeId: string, body: unknown, options?: CallOptions) => Promise<CallResult>

export interface ToolCall {
  readonly id: string
  readonly type: 'function'
  readonly function: { readonly name: string; readonly arguments: string }
}

export interface Answer {
  readonly text: string
  readonly toolCalls: readonly ToolCall[]
  readonly finishReason: string | null
  /** The chat completion as the model server gave it (`response_format: {type: "openai"}`). */
  readonly completion: Record<string, unknown>
  readonly result: CallResult
}

const EFFORT = { LOW: 'low', MEDIUM: 'medium', HIGH: 'high' } as const

/** The chat request of a query. */
export function chatBody(
  model: string,
  messages: readonly ChatMessage[],
  p: ModelParams,
  responseType: ResponseType,
): Record<string, unknown> {
  const body: Record<string, unknown> = { model, messages }
  if (p.temperature !== undefined) body.temperature = p.temperature
  if (p.top_p !== undefined) body.top_p = p.top_p
  if (p.top_k !== undefined) body.top_k = p.top_k
  if (p.max_tokens !== undefined) body.max_tokens = p.max_tokens
  if (p.thinking_level !== undefined) body.reasoning_effort = EFFORT[p.thinking_level]
  if (p.tools?.length) body.tools = p.tools
  if (p.response_format?.type === 'json_schema') body.response_format = p.response_format
  else if (responseType === 'json' || p.response_format?.type === 'json_object')
    body.response_format = { type: 'json_object' }
  return body
}

/** A JSON reply's body, whichever way the route gave it. */
export function replyBody(reply: Reply): unknown {
  if (reply.kind === 'json') return reply.body
  if (reply.kind === 'text') {
    try {
      return JSON.parse(reply.text)
    } catch {
      return undefined
    }
  }
  return undefined
}

export async function ask(
  call: RouteCall,
  route: string,
  body: Record<string, unknown>,
  options: { principal: Principal; signal: AbortSignal; parentId: string },
): Promise<Answer> {
  const result = await call(route, body, options)
  const json = replyBody(result.reply) as
    | {
        choices?: { message?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown }[]
        error?: { message?: unknown }
      }
    | undefined
  if (result.reply.status !== 200) {
    const message =
      typeof json?.error?.message === 'string'
        ? json.error.message
        : `the model answered with status ${result.reply.status}`
    throw new GatewayError(result.reply.status, message, { code: 'upstream_failed' })
  }
  const choice = json?.choices?.[0]
  if (!choice?.message) throw new GatewayError(502, 'the model server gave no answer', { code: 'upstream_failed' })
  const content = choice.message.content
  return {
    text: typeof content === 'string' ? content : '',
    toolCalls: Array.isArray(choice.message.tool_calls) ? (choice.message.tool_calls as ToolCall[]) : [],
    finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    completion: json as Record<string, unknown>,
    result,
  }
}
