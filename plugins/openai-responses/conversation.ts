/**
 * The conversation a Responses request continues: the stored input and output of its
 * `previous_response_id`, and the items its own input names by `item_reference`, both read
 * from the caller's own stored responses only (another key's id is as unknown as a missing one).
 */
import { GatewayError } from '../../kernel/contract/index.js'
import type { KeptResponses, StoredResponse } from './store/kept-responses.js'
import { isResponseId, itemId, responseOfItem } from '../../protocols/openai/responses-ids.js'
import type { InputItem, ResponseObject } from '../../protocols/openai/responses-types.js'

const notFound = (message: string) => new GatewayError(404, message, { code: 'invalid_request' })

/** A stored response of this key, or 404 in OpenAI's words. */
export async function previousResponse(kept: KeptResponses, keyId: string, id: string): Promise<StoredResponse> {
  const found = isResponseId(id) ? await kept.get(keyId, id) : undefined
  if (!found) throw notFound(`Previous response with id '${id}' not found.`)
  return found
}

/** What a next turn inherits from a stored response: its whole input, then its output. */
export function historyOf(previous: StoredResponse): InputItem[] {
  return [...(previous.input as InputItem[]), ...((previous.response as ResponseObject).output as InputItem[])]
}

/** The input with every `item_reference` replaced by the stored item it names. */
export async function resolveReferences(
  kept: KeptResponses,
  keyId: string,
  input: readonly InputItem[],
): Promise<InputItem[]> {
  if (!input.some((item) => item.type === 'item_reference')) return [...input]
  const loaded = new Map<string, StoredResponse | undefined>()
  const out: InputItem[] = []
  for (const item of input) {
    if (item.type !== 'item_reference') {
      out.push(item)
      continue
    }
    const responseId = typeof item.id === 'string' ? responseOfItem(item.id) : undefined
    if (responseId && !loaded.has(responseId)) loaded.set(responseId, await kept.get(keyId, responseId))
    const stored = responseId ? loaded.get(responseId) : undefined
    const found = stored && historyOf(stored).find((candidate) => 'id' in candidate && candidate.id === item.id)
    if (!found) throw notFound(`Item with id '${String(item.id)}' not found.`)
    out.push(found)
  }
  return out
}

/** Input items as stored and listed: each with an id (`msg_<response>_i<n>` for those sent without one). */
export function withIds(responseId: string, items: readonly InputItem[], offset: number): InputItem[] {
  return items.map((item, i) => {
    if ('id' in item && typeof item.id === 'string' && item.id !== '') return item
    const kind = item.type === 'function_call' ? 'fc' : item.type === 'function_call_output' ? 'fco' : 'msg'
    const typed = item.type === undefined ? { type: 'message' as const, ...item } : item
    return { ...typed, id: itemId(responseId, kind, offset + i, true) } as InputItem
  })
}
