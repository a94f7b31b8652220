/**
 * The token a request presents: `Authorization: Bearer <token>`, or, on routes whose options
 * allow it, a header of its own (`x-api-key` for Anthropic's clients) or a query parameter (`?access_token=` for WebSocket clients, which cannot set
 * headers in a browser; `?token=` for the SOAP clients of mapping servers). The header wins.
 * One reading for every step that authenticates, so they cannot disagree.
 */
import type { Exchange } from '../../kernel/contract/index.js'

const BEARER = /^Bearer\s+(\S+)\s*$/i

export function presentedToken(ex: Exchange, queryParam?: string, keyHeader?: string): string | undefined {
  const header = ex.header('authorization')
  if (header !== undefined) return BEARER.exec(header)?.[1]
  // A dialect's own key header (the Messages API's `x-api-key`), on routes that name it.
  if (keyHeader !== undefined) {
    const key = ex.header(keyHeader)?.trim()
    if (key) return key
  }
  if (queryParam === undefined) return undefined
  const fromQuery = ex.query.get(queryParam)
  return fromQuery === null || fromQuery === '' ? undefined : fromQuery
}
