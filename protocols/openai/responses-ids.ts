/**
 * Ids of responses and of their items. An item's id carries its response's id (`msg_<hex>_0`),
 * so that an `item_reference` a client sends back (the Vercel AI SDK does, with `store`) is
 * found by the response's primary key: no index of items is needed.
 */

const RESPONSE = /^resp_([0-9a-f]{48})$/
const ITEM = /^(?:msg|rs|fc|fco)_([0-9a-f]{48})_(i?)(\d{1,6})$/

export type ItemKind = 'msg' | 'rs' | 'fc' | 'fco'

/** `resp_` and 48 hex digits, from 24 random bytes given as hex. */
export function responseId(hex48: string): string {
  return `resp_${hex48}`
}

/** Whether `id` has the shape of a response id this gateway made (others cannot be stored). */
export function isResponseId(id: string): boolean {
  return RESPONSE.test(id)
}

/** The id of output item `index` (or input item, with `input`) of a response. */
export function itemId(responseId: string, kind: ItemKind, index: number, input = false): string {
  const hex = RESPONSE.exec(responseId)?.[1] ?? responseId.replace(/^resp_/, '')
  return `${kind}_${hex}_${input ? 'i' : ''}${index}`
}

/** The response an item id belongs to, or undefined for ids the gateway did not make. */
export function responseOfItem(id: string): string | undefined {
  const m = ITEM.exec(id)
  return m ? `resp_${m[1]}` : undefined
}
