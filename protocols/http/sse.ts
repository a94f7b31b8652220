/**
 * Server-sent events as the gateway writes them: one `data:` line per event, after an `event:`
 * line with the event's `type` in the named dialects (Anthropic's Messages, the Responses API),
 * and, for a stream that fails, the in-band error event of the spec (the stream's own dialect may
 * say it otherwise: `EventsReply.errorEvent`).
 */
import type { GatewayError, StreamEvent } from '../../kernel/contract/index.js'

/** An event that is JSON text already, or a stream's terminator (`[DONE]`). */
export const sseData = (text: string): string => `data: ${text}\n\n`

/** One event: `data:`, after `event:` with its `type` in the named dialects. */
export function sseEvent(event: StreamEvent, named: boolean | undefined): string {
  return named && typeof event.type === 'string'
    ? `event: ${event.type}\n${sseData(JSON.stringify(event))}`
    : sseData(JSON.stringify(event))
}

/** The spec's in-band error event: `{"error":{message,type,code}}`, the code being the status. */
export function streamError(error: GatewayError): StreamEvent {
  return { error: { message: error.message, type: error.type, code: error.status } }
}
