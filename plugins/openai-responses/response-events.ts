/**
 * The chat stream of the steps after the codec, relayed as Responses events. The writer
 * (protocols/openai/responses-stream.ts) says what each chunk means; this generator runs it
 * over the stream, keeps the finished Response before `response.completed` leaves (so a next
 * turn that names it at once finds it), and says a cut stream as `response.failed` before the
 * kernel writes the dialect's `error` event.
 */
import {
  GatewayError,
  SerializedEvent,
  toGatewayError,
  type StreamEvent,
  type StreamItem,
} from '../../kernel/contract/index.js'
import type { ResponsesStreamWriter } from '../../protocols/openai/responses-stream.js'
import type { ResponseObject } from '../../protocols/openai/responses-types.js'

export interface RelayOptions {
  /** Epoch seconds, for `completed_at`. */
  now(): number
  /** Keeps the finished Response (when the request asked to store it). */
  keep(response: ResponseObject): Promise<void>
  signal: AbortSignal
}

/** The `code` of the Responses error shapes: the gateway's own catalogue, else a status class. */
export function errorCode(error: GatewayError): string {
  if (typeof error.code === 'string') return error.code
  return error.status >= 500 ? 'server_error' : 'invalid_request'
}

export async function* responseEvents(
  source: AsyncIterable<StreamItem>,
  writer: ResponsesStreamWriter,
  options: RelayOptions,
): AsyncGenerator<StreamEvent> {
  yield* writer.start()
  try {
    for await (const item of source) {
      for (const event of writer.chunk(item instanceof SerializedEvent ? item.parse() : item)) yield event
    }
  } catch (err) {
    // A client that went away reads nothing more; anyone else learns the response failed.
    const clientGone = options.signal.aborted && !(options.signal.reason instanceof GatewayError)
    if (!clientGone) {
      const error = toGatewayError(err)
      yield writer.failed(errorCode(error), error.message)
    }
    throw err
  }
  const { events, response } = writer.end(options.now())
  for (const event of events) yield event
  await options.keep(response)
  yield writer.completed(response)
}
