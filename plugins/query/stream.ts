/**
 * The query over a streaming transport (the WebSocket): the answer asked with `stream: true`
 * and handed on as `query.delta` events as the model writes it, then one `query.done` event
 * whose `response` is the REST reply's body (sources, query_id, usage_metric). A failure at any
 * point, a cut upstream included, ends the stream with an error (the kernel writes it as the
 * error message). Message names follow the chat stream's deltas and OpenAI Realtime's
 * `<object>.<event>` naming.
 */
import type { Principal, StreamEvent } from '../../kernel/contract/index.js'
import { EventChannel } from '../../protocols/query/event-channel.js'
import { readAnswerStream, streamingBody } from '../../protocols/query/answer-stream.js'
import type { Answer, RouteCall } from './answer.js'

export type OnDelta = (text: string) => Promise<void>

/** `ask`, streamed: each piece of the answer goes to `onDelta` as it comes. */
export async function askStreaming(
  call: RouteCall,
  route: string,
  body: Record<string, unknown>,
  options: { principal: Principal; signal: AbortSignal; parentId: string },
  onDelta: OnDelta,
): Promise<Answer> {
  const result = await call(route, streamingBody(body), options)
  const read = await readAnswerStream(result, onDelta)
  return {
    text: read.text,
    toolCalls: read.toolCalls,
    finishReason: read.finishReason,
    completion: read.completion,
    result,
  }
}

/** The events of a streamed query: `respond` runs the query, sending deltas, and resolves to the REST body. */
export function streamedQuery(respond: (onDelta: OnDelta) => Promise<unknown>): AsyncIterable<StreamEvent> {
  const channel = new EventChannel<StreamEvent>()
  respond((delta) => channel.push({ type: 'query.delta', delta })).then(
    (response) => {
      void channel.push({ type: 'query.done', response }).catch(() => undefined)
      channel.end()
    },
    (err: unknown) => channel.end(err),
  )
  return channel
}
