/**
 * The `retrieve`, `delete` and `input-items` actions: a key's own stored responses, by id.
 * Another key's id answers exactly as a missing one does (404), so ids reveal nothing.
 */
import { GatewayError, reply, type Exchange, type Phases } from '../../kernel/contract/index.js'
import type { KeptResponses, StoredResponse } from './store/kept-responses.js'
import { isResponseId } from '../../protocols/openai/responses-ids.js'

export type StoredAction = 'retrieve' | 'delete' | 'input-items'

async function stored(kept: KeptResponses, ex: Exchange): Promise<StoredResponse> {
  const id = ex.params.id ?? ''
  const found = isResponseId(id) ? await kept.get(ex.principal!.keyId, id) : undefined
  if (!found) throw new GatewayError(404, `Response with id '${id}' not found.`, { code: 'invalid_request' })
  return found
}

/** GET /responses/:id/input_items: a page of the input, OpenAI's `order` (desc by default), `limit` and `after`. */
function inputPage(ex: Exchange, input: readonly unknown[]): unknown {
  const order = ex.query.get('order') ?? 'desc'
  if (order !== 'asc' && order !== 'desc')
    throw new GatewayError(400, "order must be 'asc' or 'desc'", { code: 'invalid_request' })
  const limit = Number(ex.query.get('limit') ?? 20)
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new GatewayError(400, 'limit must be an integer from 1 to 100', { code: 'invalid_request' })
  let items = order === 'asc' ? [...input] : [...input].reverse()
  const after = ex.query.get('after')
  if (after) items = items.slice(items.findIndex((item) => (item as { id?: unknown }).id === after) + 1)
  const data = items.slice(0, limit) as { id?: string }[]
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: items.length > limit,
  }
}

export function storedActions(action: StoredAction, kept: KeptResponses): Phases {
  return {
    async request(ex) {
      if (action === 'retrieve') {
        ex.reply = reply.json((await stored(kept, ex)).response)
      } else if (action === 'input-items') {
        ex.reply = reply.json(inputPage(ex, (await stored(kept, ex)).input))
      } else {
        const found = await stored(kept, ex)
        await kept.delete(found.keyId, found.id)
        ex.reply = reply.json({ id: found.id, object: 'response', deleted: true })
      }
    },
  }
}
