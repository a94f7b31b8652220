/**
 * Chat-completion chunks as the Messages API's stream, in its exact order:
 *
 *   message_start
 *   (content_block_start, content_block_delta*, content_block_stop) per block
 *   message_delta (stop_reason, usage)
 *   message_stop
 *
 * Blocks open as the pieces arrive (reasoning → thinking, content → text, each tool call →
 * tool_use with input_json_delta) and one closes before the next opens, as Anthropic streams
 * them; a thinking block ends with its signature_delta. One translator per stream; `push` takes
 * each upstream chunk, `end` closes the message once the upstream stream completed. A stream
 * that fails is not ended here: the caller's error event follows what was sent.
 */
import type { BlockDelta, ContentBlock, MessageStreamEvent, StopReason } from './messages.js'
import type { ChatChunk, ChatUsage } from './openai-chat.js'
import { messageUsage, stopReason } from './stop-and-usage.js'
import { ThinkingSignature } from './thinking-signature.js'
import type { MessageContext } from './message-from-completion.js'

type OpenBlock =
  | { kind: 'thinking'; signature: ThinkingSignature }
  | { kind: 'text' }
  | { kind: 'tool'; upstreamIndex: number; id: string | undefined }

export interface StreamContext extends MessageContext {
  /** The prompt's tokens for message_start when the first chunk carries no usage (an estimate). */
  inputTokens: number
}

export class ChunksToEvents {
  private started = false
  private open: OpenBlock | undefined
  private index = -1
  private usage: ChatUsage | undefined
  private finishReason: string | null | undefined
  private stopMatch: string | number | null | undefined
  private toolCalls = false
  /** Pieces streamed: the output count when the server reports no usage. */
  private pieces = 0

  constructor(private readonly context: StreamContext) {}

  push(chunk: ChatChunk): MessageStreamEvent[] {
    const out: MessageStreamEvent[] = []
    if (chunk.usage) this.usage = chunk.usage
    if (!this.started) out.push(this.start())
    // The Messages API has one reply per request: choices other than the first are not asked for.
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0)
    if (!choice) return out
    const delta = choice.delta
    if (delta) {
      if (typeof delta.reasoning === 'string' && delta.reasoning !== '') {
        if (this.open?.kind !== 'thinking')
          this.openBlock(
            out,
            { kind: 'thinking', signature: new ThinkingSignature() },
            { type: 'thinking', thinking: '', signature: '' },
          )
        ;(this.open as { signature: ThinkingSignature }).signature.add(delta.reasoning)
        this.delta(out, { type: 'thinking_delta', thinking: delta.reasoning })
      }
      if (typeof delta.content === 'string' && delta.content !== '') {
        if (this.open?.kind !== 'text') this.openBlock(out, { kind: 'text' }, { type: 'text', text: '' })
        this.delta(out, { type: 'text_delta', text: delta.content })
      }
      for (const call of delta.tool_calls ?? []) {
        const upstreamIndex = call.index ?? 0
        const current = this.open
        // A new call: another index, or another id (some servers repeat the id on every piece).
        if (
          current?.kind !== 'tool' ||
          current.upstreamIndex !== upstreamIndex ||
          (call.id !== undefined && call.id !== current.id)
        ) {
          this.toolCalls = true
          this.openBlock(
            out,
            { kind: 'tool', upstreamIndex, id: call.id },
            { type: 'tool_use', id: call.id ?? '', name: call.function?.name ?? '', input: {} },
          )
        }
        const args = call.function?.arguments
        if (typeof args === 'string' && args !== '') this.delta(out, { type: 'input_json_delta', partial_json: args })
      }
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason
    if (choice.stop_reason !== undefined && choice.stop_reason !== null) this.stopMatch = choice.stop_reason
    return out
  }

  /** The upstream stream completed: close the last block and the message. */
  end(): MessageStreamEvent[] {
    const out: MessageStreamEvent[] = []
    if (!this.started) out.push(this.start())
    this.closeBlock(out)
    const end: { stop_reason: StopReason; stop_sequence: string | null } = stopReason(
      { finishReason: this.finishReason, stopMatch: this.stopMatch, toolCalls: this.toolCalls },
      this.context.stopSequences,
    )
    out.push({
      type: 'message_delta',
      delta: end,
      usage: messageUsage(this.usage, { inputTokens: this.context.inputTokens, outputTokens: this.pieces }),
    })
    out.push({ type: 'message_stop' })
    return out
  }

  private start(): MessageStreamEvent {
    this.started = true
    const usage = messageUsage(this.usage, { inputTokens: this.context.inputTokens, outputTokens: 0 })
    // Nothing is generated yet: a server's running count on the first chunk is zero anyway.
    usage.output_tokens = 0
    return {
      type: 'message_start',
      message: {
        id: this.context.id,
        type: 'message',
        role: 'assistant',
        model: this.context.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    }
  }

  private openBlock(out: MessageStreamEvent[], block: OpenBlock, contentBlock: ContentBlock): void {
    this.closeBlock(out)
    this.open = block
    this.index++
    out.push({ type: 'content_block_start', index: this.index, content_block: contentBlock })
  }

  private closeBlock(out: MessageStreamEvent[]): void {
    const open = this.open
    if (!open) return
    if (open.kind === 'thinking')
      out.push({
        type: 'content_block_delta',
        index: this.index,
        delta: { type: 'signature_delta', signature: open.signature.digest() },
      })
    out.push({ type: 'content_block_stop', index: this.index })
    this.open = undefined
  }

  private delta(out: MessageStreamEvent[], delta: BlockDelta): void {
    this.pieces++
    out.push({ type: 'content_block_delta', index: this.index, delta })
  }
}
