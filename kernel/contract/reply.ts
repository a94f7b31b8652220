/**
 * Replies are values. A plugin sets `ex.reply` to one of these; only the kernel turns it into
 * bytes on a wire (HTTP JSON, server-sent events, audio bytes, a WebSocket message).
 */

import type { GatewayError } from './errors.js'

/** One streamed event: a JSON object sent as one `data:` line (SSE) or one message (WebSocket). */
export type StreamEvent = Record<string, unknown>

/**
 * An event that is already JSON text, as a model server sent it: the kernel writes it as is,
 * and parses it only for a step whose chunk phase needs the object (or for an in-process
 * caller). Relaying a stream then costs no parse and no serialization per event.
 */
export class SerializedEvent {
  constructor(readonly json: string) {}

  parse(): StreamEvent {
    return JSON.parse(this.json) as StreamEvent
  }
}

export type StreamItem = StreamEvent | SerializedEvent

export interface JsonReply {
  readonly kind: 'json'
  status: number
  body: unknown
}

export interface EventsReply {
  readonly kind: 'events'
  status: number
  events: AsyncIterable<StreamItem>
  /**
   * Written after the last event when the stream completes (`[DONE]` for OpenAI-style
   * streams). Never written when the stream fails: a failed stream ends with an error event.
   */
  terminator?: string
  /**
   * Write each event's `type` as the SSE `event:` line too (`event: message_start`), as the
   * Anthropic and Responses dialects do; off for OpenAI-style streams.
   */
  named?: boolean
  /**
   * How a failure is said in-band, in the stream's own dialect (default: the spec's
   * `{"error":{"message","type","code"}}`). Written as the last event; no terminator follows.
   */
  errorEvent?: (error: GatewayError) => StreamEvent
}

export interface BytesReply {
  readonly kind: 'bytes'
  status: number
  contentType: string
  data: Uint8Array | AsyncIterable<Uint8Array>
}

export interface TextReply {
  readonly kind: 'text'
  status: number
  contentType: string
  text: string
}

export type Reply = JsonReply | EventsReply | BytesReply | TextReply

export const reply = {
  json(body: unknown, status = 200): JsonReply {
    return { kind: 'json', status, body }
  },
  events(
    events: AsyncIterable<StreamItem>,
    options: {
      status?: number
      terminator?: string
      named?: boolean
      errorEvent?: (error: GatewayError) => StreamEvent
    } = {},
  ): EventsReply {
    return {
      kind: 'events',
      status: options.status ?? 200,
      events,
      terminator: options.terminator,
      named: options.named,
      errorEvent: options.errorEvent,
    }
  },
  bytes(contentType: string, data: Uint8Array | AsyncIterable<Uint8Array>, status = 200): BytesReply {
    return { kind: 'bytes', status, contentType, data }
  },
  text(contentType: string, text: string, status = 200): TextReply {
    return { kind: 'text', status, contentType, text }
  },
}
