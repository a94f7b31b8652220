/**
 * A streamed chat completion as the Responses API's events. One writer per request turns each
 * chat chunk into the events it means, in OpenAI's order: `response.created` and
 * `response.in_progress`; per output item `response.output_item.added`, its parts and deltas
 * (`response.reasoning_summary_*`, `response.content_part.*` and `response.output_text.*`,
 * `response.function_call_arguments.*`), `response.output_item.done`; and last
 * `response.completed` (or `response.incomplete`) with the whole Response and its usage. Every
 * event carries `sequence_number`, counting from 0. Pure: no I/O, no clock.
 */
import {
  functionCallItem,
  includesEncryptedReasoning,
  messageItem,
  reasoningItem,
  responseSkeleton,
  responseUsage,
  statusOf,
  type ChatUsage,
  type ResponseContext,
} from './responses-reply.js'
import type { Json, OutputItem, ResponseObject } from './responses-types.js'

export type ResponsesEvent = Json & { type: string; sequence_number: number }

interface ChatDelta {
  content?: string | null
  reasoning?: string | null
  tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[] | null
}

type Open =
  | { kind: 'reasoning'; index: number; text: string }
  | { kind: 'message'; index: number; text: string }
  | { kind: 'call'; index: number; callId: string; name: string; args: string }

export class ResponsesStreamWriter {
  private seq = 0
  private readonly response: ResponseObject
  /** Items in output order; a finished item is replaced by its final form. */
  private readonly items: OutputItem[] = []
  /** The reasoning or message item being written, if any (calls stay open to the end). */
  private current: Open | undefined
  /** Function calls by the chat stream's tool call index. */
  private readonly calls = new Map<number, Open & { kind: 'call' }>()
  private finishReason: unknown
  private usage: ChatUsage | undefined

  constructor(
    private readonly ctx: ResponseContext,
    model: string,
  ) {
    this.response = responseSkeleton(ctx, model)
  }

  private event(type: string, fields: Json): ResponsesEvent {
    return { type, ...fields, sequence_number: this.seq++ }
  }

  /** `response.created` and `response.in_progress`. */
  start(): ResponsesEvent[] {
    return [
      this.event('response.created', { response: this.snapshot() }),
      this.event('response.in_progress', { response: this.snapshot() }),
    ]
  }

  /** The events one chat chunk means (none for a usage-only chunk). */
  chunk(chunk: Json): ResponsesEvent[] {
    const out: ResponsesEvent[] = []
    if (typeof chunk.model === 'string' && chunk.model !== '') this.response.model = chunk.model
    if (chunk.usage) this.usage = chunk.usage as ChatUsage
    const choice = (Array.isArray(chunk.choices) ? chunk.choices[0] : undefined) as
      | { delta?: ChatDelta; finish_reason?: unknown }
      | undefined
    if (!choice) return out
    const delta = choice.delta ?? {}
    if (typeof delta.reasoning === 'string' && delta.reasoning !== '') this.reasoningDelta(delta.reasoning, out)
    if (typeof delta.content === 'string' && delta.content !== '') this.textDelta(delta.content, out)
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) this.callDelta(call, out)
    if (choice.finish_reason !== undefined && choice.finish_reason !== null) this.finishReason = choice.finish_reason
    return out
  }

  private reasoningDelta(text: string, out: ResponsesEvent[]): void {
    const open = this.current?.kind === 'reasoning' ? this.current : this.openReasoning(out)
    open.text += text
    out.push(
      this.event('response.reasoning_summary_text.delta', {
        item_id: this.items[open.index]!.id,
        output_index: open.index,
        summary_index: 0,
        delta: text,
      }),
    )
  }

  private openReasoning(out: ResponsesEvent[]): Open & { kind: 'reasoning' } {
    this.closeCurrent(out)
    const open = { kind: 'reasoning' as const, index: this.items.length, text: '' }
    this.current = open
    const item = reasoningItem(this.ctx.id, open.index, '', 'in_progress')
    this.items.push(item)
    out.push(this.event('response.output_item.added', { output_index: open.index, item }))
    out.push(
      this.event('response.reasoning_summary_part.added', {
        item_id: item.id,
        output_index: open.index,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      }),
    )
    return open
  }

  private textDelta(text: string, out: ResponsesEvent[]): void {
    const open = this.current?.kind === 'message' ? this.current : this.openMessage(out)
    open.text += text
    out.push(
      this.event('response.output_text.delta', {
        item_id: this.items[open.index]!.id,
        output_index: open.index,
        content_index: 0,
        delta: text,
        logprobs: [],
      }),
    )
  }

  private openMessage(out: ResponsesEvent[]): Open & { kind: 'message' } {
    this.closeCurrent(out)
    const open = { kind: 'message' as const, index: this.items.length, text: '' }
    this.current = open
    const item = messageItem(this.ctx.id, open.index, '', 'in_progress')
    item.content = []
    this.items.push(item)
    out.push(this.event('response.output_item.added', { output_index: open.index, item }))
    out.push(
      this.event('response.content_part.added', {
        item_id: item.id,
        output_index: open.index,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      }),
    )
    return open
  }

  private callDelta(delta: NonNullable<ChatDelta['tool_calls']>[number], out: ResponsesEvent[]): void {
    const key = delta.index ?? 0
    let open = this.calls.get(key)
    if (!open) {
      this.closeCurrent(out)
      open = {
        kind: 'call',
        index: this.items.length,
        callId: delta.id ?? '',
        name: delta.function?.name ?? '',
        args: '',
      }
      this.calls.set(key, open)
      const item = functionCallItem(this.ctx.id, open.index, open.callId, open.name, '', 'in_progress')
      if (open.callId === '') item.call_id = item.id
      open.callId = item.call_id
      this.items.push(item)
      out.push(this.event('response.output_item.added', { output_index: open.index, item }))
    } else if (delta.function?.name && open.name === '') {
      open.name = delta.function.name
    }
    const piece = delta.function?.arguments
    if (typeof piece === 'string' && piece !== '') {
      open.args += piece
      out.push(
        this.event('response.function_call_arguments.delta', {
          item_id: this.items[open.index]!.id,
          output_index: open.index,
          delta: piece,
        }),
      )
    }
  }

  private closeCurrent(out: ResponsesEvent[]): void {
    const open = this.current
    if (!open) return
    this.current = undefined
    this.closeItem(open, out)
  }

  private closeItem(open: Open, out: ResponsesEvent[]): void {
    const incomplete = statusOf(this.finishReason).status === 'incomplete'
    const status = incomplete ? 'incomplete' : 'completed'
    const id = this.items[open.index]!.id
    let item: OutputItem
    if (open.kind === 'reasoning') {
      // `encrypted_content`, when asked, comes with the finished item (`output_item.done`), as the text is only known then.
      item = reasoningItem(
        this.ctx.id,
        open.index,
        open.text,
        'completed',
        includesEncryptedReasoning(this.ctx.request),
      )
      out.push(
        this.event('response.reasoning_summary_text.done', {
          item_id: id,
          output_index: open.index,
          summary_index: 0,
          text: open.text,
        }),
      )
      out.push(
        this.event('response.reasoning_summary_part.done', {
          item_id: id,
          output_index: open.index,
          summary_index: 0,
          part: { type: 'summary_text', text: open.text },
        }),
      )
    } else if (open.kind === 'message') {
      item = messageItem(this.ctx.id, open.index, open.text, status)
      out.push(
        this.event('response.output_text.done', {
          item_id: id,
          output_index: open.index,
          content_index: 0,
          text: open.text,
          logprobs: [],
        }),
      )
      out.push(
        this.event('response.content_part.done', {
          item_id: id,
          output_index: open.index,
          content_index: 0,
          part: item.content[0],
        }),
      )
    } else {
      item = functionCallItem(this.ctx.id, open.index, open.callId, open.name, open.args, status)
      out.push(
        this.event('response.function_call_arguments.done', {
          item_id: id,
          output_index: open.index,
          name: open.name,
          arguments: open.args,
        }),
      )
    }
    this.items[open.index] = item
    out.push(this.event('response.output_item.done', { output_index: open.index, item }))
  }

  /**
   * The chat stream completed: the events that close every open item, and the finished
   * Response (status, output, usage) that the last event will carry.
   */
  end(completedAt: number): { events: ResponsesEvent[]; response: ResponseObject } {
    const out: ResponsesEvent[] = []
    // A reply that said nothing at all still has its (empty) message, as a whole completion does.
    if (this.items.length === 0) this.openMessage(out)
    this.closeCurrent(out)
    for (const call of [...this.calls.values()].sort((a, b) => a.index - b.index)) this.closeItem(call, out)
    this.calls.clear()
    const { status, incomplete_details } = statusOf(this.finishReason)
    const response: ResponseObject = {
      ...this.snapshot(),
      status,
      incomplete_details,
      output: [...this.items],
      usage: responseUsage(this.usage),
      completed_at: status === 'completed' ? completedAt : null,
    }
    return { events: out, response }
  }

  /** The last event of a stream that completed: `response.completed`, or `response.incomplete`. */
  completed(response: ResponseObject): ResponsesEvent {
    return this.event(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response })
  }

  /** `response.failed`, for a stream cut before it completed: the Response as far as it got. */
  failed(code: string, message: string): ResponsesEvent {
    return this.event('response.failed', {
      response: {
        ...this.snapshot(),
        status: 'failed',
        error: { code, message },
        output: [...this.items],
        usage: responseUsage(this.usage),
      },
    })
  }

  /**
   * The in-band `error` event, written last on a failed stream. OpenAI documents `code`,
   * `message` and `param` at the top level and sends them nested under `error` too; the `openai`
   * SDK raises on the nested form, typed clients read the flat one: both are here.
   */
  error(type: string, code: string, message: string): ResponsesEvent {
    return this.event('error', { code, message, param: null, error: { type, code, message, param: null } })
  }

  private snapshot(): ResponseObject {
    return { ...this.response, output: [] }
  }
}
