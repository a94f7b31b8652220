/**
 * A chat completion as an Anthropic `message`: reasoning as a thinking block (with its
 * signature), then the text, then one tool_use block per tool call, in that order, as
 * Anthropic's models answer.
 */
import type { ContentBlock, Message } from './messages.js'
import type { ChatCompletion } from './openai-chat.js'
import { messageUsage, stopReason } from './stop-and-usage.js'
import { thinkingSignature } from './thinking-signature.js'

export interface MessageContext {
  /** `msg_…` */
  id: string
  /** The model as the client named it. */
  model: string
  stopSequences?: readonly string[]
}

export function messageFromCompletion(completion: ChatCompletion, context: MessageContext): Message {
  const choice = completion.choices?.[0]
  const message = choice?.message ?? {}
  const content: ContentBlock[] = []
  if (typeof message.reasoning === 'string' && message.reasoning !== '')
    content.push({ type: 'thinking', thinking: message.reasoning, signature: thinkingSignature(message.reasoning) })
  if (typeof message.content === 'string' && message.content !== '')
    content.push({ type: 'text', text: message.content })
  const calls = message.tool_calls ?? []
  for (const call of calls)
    content.push({ type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call.function.arguments) })
  return {
    id: context.id,
    type: 'message',
    role: 'assistant',
    model: context.model,
    content,
    ...stopReason(
      { finishReason: choice?.finish_reason, stopMatch: choice?.stop_reason, toolCalls: calls.length > 0 },
      context.stopSequences,
    ),
    usage: messageUsage(completion.usage, { inputTokens: 0, outputTokens: 0 }),
  }
}

/**
 * A call's arguments as the `input` object. Arguments cut short by max_tokens are not JSON;
 * the block then has an empty input (its stop_reason says max_tokens).
 */
export function toolInput(args: string | undefined): unknown {
  if (args === undefined || args === '') return {}
  try {
    return JSON.parse(args)
  } catch {
    return {}
  }
}
