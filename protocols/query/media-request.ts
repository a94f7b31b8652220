/**
 * What the Query service's media bodies (image, audio, speech) share with the query request:
 * the envelope fields, and a refusal of unknown fields that names them. The body schemas leave
 * `additionalProperties` open so that this check, not ajv's "must NOT have additional
 * properties", answers: a misspelt field gets a 400 that says which one.
 */
import { GatewayError } from '../../kernel/errors.js'

/** The fields every Query service body type takes (spec 001, "Query request"). */
export const ENVELOPE_FIELDS = ['endpoint', 'action', 'request_source', 'project_id', 'session_id', 'model_provider', 'model_name'] as const

export function refuseUnknownFields(body: unknown, schema: { readonly properties: object }, handler: string): void {
  if (body === null || typeof body !== 'object') return
  const known = Object.keys(schema.properties)
  for (const field of Object.keys(body)) {
    if (!known.includes(field)) throw new GatewayError(400, `unknown field ${field}: ${handler} requests take ${known.join(', ')}`, { code: 'invalid_request' })
  }
}

/** `endpoint`, when sent, names the body type (as `query` does for the query request). */
export function checkEndpoint(endpoint: unknown, handler: string): void {
  if (endpoint !== undefined && endpoint !== handler) throw new GatewayError(400, `endpoint must be ${handler} on this route`, { code: 'invalid_request' })
}
