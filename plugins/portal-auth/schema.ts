import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    action: {
      type: 'string',
      enum: ['session', 'sign-in', 'sign-out', 'status'],
      default: 'session',
      description:
        '`session`: let the request on only with a live session cookie (and, for anything but GET and HEAD, its CSRF token in `x-csrf-token`), as `admin-auth` does with the admin key; `sign-in`: trade the admin key (`{"admin_key"}`) for a session cookie and a CSRF token; `sign-out`: end the session; `status`: the session\'s CSRF token and expiry (401 without one).',
    },
    ttl_minutes: {
      type: 'integer',
      minimum: 1,
      maximum: 10080,
      default: 480,
      description: 'How long a session lasts after sign-in (absolute, not sliding); then the operator signs in again.',
    },
    secure_cookie: {
      type: 'boolean',
      default: false,
      description:
        'Add `Secure` to the cookie: set it when the portal is reached over HTTPS (a TLS terminator in front); browsers then never send the cookie over plain HTTP.',
    },
    max_sessions: {
      type: 'integer',
      minimum: 1,
      maximum: 100000,
      default: 1000,
      description: 'Most sessions kept at once; past it the oldest is ended.',
    },
  },
} as const

export type PortalAuthConfig = FromSchema<typeof configSchema>
