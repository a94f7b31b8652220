/**
 * anthropic-messages: the Messages API's codec. On the way in it turns the Messages request
 * into a chat-completions body (protocols/anthropic/request-to-chat.ts), so the chat steps
 * after it serve it unchanged; on the way out it turns the chat reply into a `message`, or a
 * chat stream into Anthropic's named events, with Anthropic's in-band `error` event when the
 * stream fails. Usage needs nothing here: the backend fills `ex.usage` as for chat.
 */
import {
  SerializedEvent,
  definePlugin,
  reply,
  type Exchange,
  type StreamEvent,
  type StreamItem,
} from '../../kernel/contract/index.js'
import { anthropicErrorBody } from '../../protocols/anthropic/error-body.js'
import { messagesToChat } from '../../protocols/anthropic/request-to-chat.js'
import { messageFromCompletion, type MessageContext } from '../../protocols/anthropic/message-from-completion.js'
import { ChunksToEvents } from '../../protocols/anthropic/chunks-to-events.js'
import type { MessagesRequest } from '../../protocols/anthropic/messages.js'
import type { ChatChunk, ChatCompletion } from '../../protocols/anthropic/openai-chat.js'
import { configSchema } from './schema.js'

export default definePlugin({
  name: 'anthropic-messages',
  config: configSchema,
  provides: [],
  setup(config) {
    const counting = config.mode === 'count_tokens'
    return {
      async request(ex, next) {
        const request = ex.body as MessagesRequest
        ex.body = messagesToChat(request, counting ? 'count' : 'create')
        // Anthropic's clients read the request id from `request-id`.
        ex.headers.set('request-id', ex.id)
        if (counting) return next()
        await next()
        const answer = ex.reply
        const context: MessageContext = {
          id: messageId(ex),
          model: request.model ?? '',
          stopSequences: request.stop_sequences,
        }
        if (answer?.kind === 'json' && answer.status === 200) {
          ex.reply = reply.json(messageFromCompletion(answer.body as ChatCompletion, context))
        } else if (answer?.kind === 'events') {
          const translator = new ChunksToEvents({ ...context, inputTokens: ex.usage.demand().inputTokens })
          ex.reply = reply.events(messageEvents(answer.events, translator), {
            status: answer.status,
            named: true,
            errorEvent: anthropicErrorBody,
          })
        }
      },
    }
  },
})

/** `msg_` and the request id, so a message can be found in the logs by its own id. */
function messageId(ex: Exchange): string {
  return `msg_${ex.id.replace(/[^A-Za-z0-9]/g, '')}`
}

/** The chat stream as Messages events. A failure upstream is rethrown: the kernel then writes the error event. */
async function* messageEvents(
  source: AsyncIterable<StreamItem>,
  translator: ChunksToEvents,
): AsyncGenerator<StreamEvent> {
  for await (const item of source) {
    const chunk = (item instanceof SerializedEvent ? item.parse() : item) as ChatChunk
    for (const event of translator.push(chunk)) yield event
  }
  for (const event of translator.end()) yield event
}
