/**
 * The token a request presents: `Authorization: Bearer <token>`, or, on routes whose options
 * allow it, a query parameter (`?access_token=` for WebSocket clients, which cannot set
 * headers in a browser; `?token=` for the SOAP clients of mapping servers). The header wins.
 * One reading for every step that authenticates, so they cannot disagree.
 */
import type { Exchange } from '../../exchange.js'

const BEARER = /^Bearer\s+(\S+)\s*$/i

export function presentedToken(ex: Exchange, queryParam?: string): string | undefined {
  const header = ex.header('authorization')
  if (header !== undefined) return BEARER.exec(header)?.[1]
  if (queryParam === undefined) return undefined
  const fromQuery = ex.query.get(queryParam)
  return fromQuery === null || fromQuery === '' ? undefined : fromQuery
}
