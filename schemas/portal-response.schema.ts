/**
 * The portal's own answers (plugins/portal-auth): the session's CSRF token and expiry, and the
 * sign-out. The rest of the portal's API answers as the admin and knowledge APIs do.
 */
import type { FromSchema } from 'json-schema-to-ts'

export const portalSessionSchema = {
  description: "The session's CSRF token (send it as `x-csrf-token` on changes) and its expiry.",
  type: 'object',
  additionalProperties: false,
  required: ['csrf_token', 'expires_at'],
  properties: { csrf_token: { type: 'string', minLength: 1 }, expires_at: { type: 'string', format: 'date-time' } },
} as const

export const portalSignedOutSchema = {
  description: 'Signed out; the cookie is cleared.',
  type: 'object',
  additionalProperties: false,
  required: ['signed_out'],
  properties: { signed_out: { const: true } },
} as const

export type PortalSessionView = FromSchema<typeof portalSessionSchema>
