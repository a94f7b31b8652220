/**
 * How a chat reply's end and usage read in the Messages API: finish_reason as stop_reason, and
 * OpenAI's usage as Anthropic's, in which `input_tokens` leaves out the tokens read from the
 * cache (OpenAI's `prompt_tokens` includes them) and counts them in `cache_read_input_tokens`.
 */
import type { MessageUsage, StopReason } from './messages.js'
import type { ChatUsage } from './openai-chat.js'

export interface ChatEnd {
  finishReason: string | null | undefined
  /** vLLM's `stop_reason`: the stop string that ended the reply, when one did. */
  stopMatch: string | number | null | undefined
  /** Whether the reply made tool calls (a named tool choice ends with `stop` on vLLM). */
  toolCalls: boolean
}

export function stopReason(
  end: ChatEnd,
  stopSequences: readonly string[] | undefined,
): { stop_reason: StopReason; stop_sequence: string | null } {
  if (end.finishReason === 'length') return { stop_reason: 'max_tokens', stop_sequence: null }
  if (end.toolCalls || end.finishReason === 'tool_calls') return { stop_reason: 'tool_use', stop_sequence: null }
  if (end.finishReason === 'content_filter') return { stop_reason: 'refusal', stop_sequence: null }
  if (typeof end.stopMatch === 'string' && stopSequences?.includes(end.stopMatch))
    return { stop_reason: 'stop_sequence', stop_sequence: end.stopMatch }
  return { stop_reason: 'end_turn', stop_sequence: null }
}

export function messageUsage(
  usage: ChatUsage | null | undefined,
  fallback: { inputTokens: number; outputTokens: number },
): MessageUsage {
  const prompt = usage?.prompt_tokens ?? fallback.inputTokens
  const cached = Math.min(usage?.prompt_tokens_details?.cached_tokens ?? 0, prompt)
  return {
    input_tokens: prompt - cached,
    output_tokens: usage?.completion_tokens ?? fallback.outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  }
}
