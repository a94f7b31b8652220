/**
 * openai-responses: the OpenAI Responses API door (`/v1/responses`) over the chat machinery.
 * `create` translates the Responses request (with the conversation of its
 * `previous_response_id`) into a chat request in `ex.body` for the steps after it (model,
 * budget, reasoning, queue, records, backend), and their chat reply back into a Response, or
 * into the Responses stream events. With `store` (the default, as at OpenAI) the Response and
 * its input are kept per key for `previous_response_id`, `item_reference` and the `retrieve`,
 * `delete` and `input-items` actions; they live in the plugin's own table (store/), opened once
 * per process. Translation lives in protocols/openai/responses-*.ts.
 */
import crypto from 'node:crypto'
import { definePlugin, describeCause, reply, type Exchange, type Phases } from '../../kernel/contract/index.js'
import { openKeptResponses, type KeptResponses, type StoredResponse } from './store/kept-responses.js'
import { ownInput, toChatBody } from '../../protocols/openai/responses-request.js'
import { fromChatCompletion, type ResponseContext } from '../../protocols/openai/responses-reply.js'
import { ResponsesStreamWriter } from '../../protocols/openai/responses-stream.js'
import { responseId } from '../../protocols/openai/responses-ids.js'
import type { Json, ResponseObject, ResponsesRequest } from '../../protocols/openai/responses-types.js'
import { historyOf, previousResponse, resolveReferences, withIds } from './conversation.js'
import { errorCode, responseEvents } from './response-events.js'
import { storedActions } from './stored-actions.js'
import { configSchema } from './schema.js'

declare module '../../kernel/contract/index.js' {
  interface ExchangeState {
    /** The Response being made: its id, and whether it is kept. */
    responses?: { id: string; store: boolean }
  }
}

export default definePlugin({
  name: 'openai-responses',
  config: configSchema,
  requires: ['principal'],
  provides: ['responses'],
  open: openKeptResponses,
  setup(config, kernel, kept): Phases {
    if (config.action !== 'create') return storedActions(config.action, kept)
    return {
      async request(ex, next) {
        const req = ex.body as ResponsesRequest
        const keyId = ex.principal!.keyId
        const store = req.store !== false
        const id = responseId(crypto.randomBytes(24).toString('hex'))
        const previous =
          typeof req.previous_response_id === 'string'
            ? await previousResponse(kept, keyId, req.previous_response_id)
            : undefined
        const history = previous ? historyOf(previous) : []
        const input = await resolveReferences(kept, keyId, ownInput(req))
        ex.body = toChatBody(req, history, input)
        ex.state.responses = { id, store }
        const createdMs = kernel.now()
        const ctx: ResponseContext = { id, createdAt: Math.floor(createdMs / 1000), request: req, store }
        // The conversation up to this response, as the next turn will inherit it.
        const conversation = [...history, ...withIds(id, input, history.length)]
        const keep = (response: ResponseObject) =>
          store
            ? keepResponse(kept, ex, { id, keyId, createdAt: createdMs, response, input: conversation })
            : Promise.resolve()

        await next()

        const answer = ex.reply
        if (answer?.kind === 'json' && answer.status === 200) {
          const response = fromChatCompletion(ctx, answer.body as Json, Math.floor(kernel.now() / 1000))
          await keep(response)
          ex.reply = reply.json(response)
        } else if (answer?.kind === 'events') {
          const model = ex.state.model?.model
          const writer = new ResponsesStreamWriter(ctx, model?.served_name ?? model?.id ?? req.model ?? '')
          const events = responseEvents(answer.events, writer, {
            now: () => Math.floor(kernel.now() / 1000),
            keep,
            signal: ex.signal,
          })
          ex.reply = reply.events(events, {
            status: answer.status,
            named: true,
            errorEvent: (error) => writer.error(error.type, errorCode(error), error.message),
          })
        }
      },
    }
  },
})

/**
 * Keeps a finished Response before the client sees it complete, so that a next turn naming it
 * finds it on any replica. A store that fails costs the client nothing but the keeping: the
 * reply still goes out, and the failure is logged (never the text).
 */
async function keepResponse(kept: KeptResponses, ex: Exchange, stored: StoredResponse): Promise<void> {
  try {
    await kept.put(stored)
  } catch (err) {
    ex.log.error('response not stored', { response: stored.id, cause: describeCause(err) })
  }
}
