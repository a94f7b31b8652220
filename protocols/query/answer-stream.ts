/**
 * Reading a streamed answer of the chat route (OpenAI chat chunks, as kernel.call gives them):
 * each piece of text handed on as it comes (`onDelta`, awaited, so a slow reader slows the
 * read), tool calls put together from their fragments, and the whole answer at the end, also
 * as the chat completion a non-streamed call would have returned (`response_format: openai`).
 * A model server's error before the stream passes through with its status and message; a
 * stream cut mid-way throws, so the caller ends the request with an error, never silently.
 */
import { GatewayError, type CallResult } from '../../kernel/contract/index.js'
import { addToolCallDelta, type StreamedToolCall, type ToolCallDelta } from '../openai/streamed-tool-calls.js'

export type { StreamedToolCall }

export interface StreamedAnswer {
  readonly text: string
  readonly toolCalls: readonly StreamedToolCall[]
  readonly finishReason: string | null
  /** The answer as a `chat.completion` object. */
  readonly completion: Record<string, unknown>
  /** performance.now() of the first text, when there was any (time to first token). */
  readonly firstDeltaAt?: number
}

interface ChunkDelta {
  content?: unknown
  tool_calls?: ToolCallDelta[]
}
interface Chunk {
  id?: string
  model?: string
  created?: number
  choices?: { delta?: ChunkDelta; finish_reason?: unknown }[]
  usage?: unknown
  error?: { message?: unknown }
}

/** The chat request of a streamed answer: the usage comes in the last chunk. */
export function streamingBody(body: Record<string, unknown>): Record<string, unknown> {
  return { ...body, stream: true, stream_options: { include_usage: true } }
}

/** The error of a reply that is not a stream (the model server refused before streaming). */
export function notStreamedError(result: CallResult): GatewayError {
  const reply = result.reply
  const body = reply.kind === 'json' ? (reply.body as Chunk | undefined) : undefined
  const message =
    typeof body?.error?.message === 'string' ? body.error.message : `the model answered with status ${reply.status}`
  return new GatewayError(reply.status === 200 ? 502 : reply.status, message, { code: 'upstream_failed' })
}

export async function readAnswerStream(
  result: CallResult,
  onDelta: (text: string) => Promise<void>,
): Promise<StreamedAnswer> {
  const reply = result.reply
  if (reply.kind !== 'events' || reply.status !== 200) throw notStreamedError(result)
  let text = ''
  let finishReason: string | null = null
  let firstDeltaAt: number | undefined
  let last: Chunk = {}
  const calls: StreamedToolCall[] = []
  for await (const item of reply.events) {
    const chunk = item as Chunk
    if (chunk.error)
      throw new GatewayError(
        502,
        typeof chunk.error.message === 'string' ? chunk.error.message : 'the model server failed mid-stream',
        { code: 'upstream_failed' },
      )
    last = chunk
    const choice = chunk.choices?.[0]
    if (!choice) continue
    if (typeof choice.finish_reason === 'string') finishReason = choice.finish_reason
    for (const part of choice.delta?.tool_calls ?? []) addToolCallDelta(calls, part)
    const delta = choice.delta?.content
    if (typeof delta === 'string' && delta !== '') {
      firstDeltaAt ??= performance.now()
      text += delta
      await onDelta(delta)
    }
  }
  // A stream that ends without a finish reason was cut, even when its transport ended cleanly.
  if (finishReason === null)
    throw new GatewayError(502, 'the model server ended the answer stream before it finished', {
      code: 'upstream_failed',
    })
  const toolCalls = calls.filter(Boolean)
  const message = {
    role: 'assistant',
    content: toolCalls.length && !text ? null : text,
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
  }
  const completion = {
    id: last.id,
    object: 'chat.completion',
    created: last.created,
    model: last.model,
    choices: [{ index: 0, message, finish_reason: finishReason }],
    ...(last.usage ? { usage: last.usage } : {}),
  }
  return { text, toolCalls, finishReason, completion, firstDeltaAt }
}
