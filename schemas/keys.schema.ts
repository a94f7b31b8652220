/**
 * `config/keys.yaml`: the static seed of groups (tenants) and API keys. Secrets are never
 * written here: a key holds the SHA-256 of its secret, or (the demo key) takes its secret
 * from the environment or from the data folder.
 */
import type { FromSchema } from 'json-schema-to-ts'

export const groupSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    models: {
      type: 'array',
      items: { type: 'string' },
      default: ['*'],
      description: 'Catalog ids and family names the group may use; `*` permits every model.',
    },
    weight: {
      type: 'number',
      exclusiveMinimum: 0,
      default: 1,
      description: 'Share of a busy model the group gets in the fair queue.',
    },
    budget: {
      type: 'object',
      additionalProperties: false,
      description: 'Spending budget per term, in indicative value.',
      properties: {
        amount: { type: 'number', minimum: 0 },
        term: { type: 'string', enum: ['day', 'week', 'month'], default: 'month' },
      },
      required: ['amount'],
    },
    tokens_per_minute: { type: 'integer', minimum: 1, description: 'Per-minute token budget of the whole group.' },
    forward_headers: {
      type: 'boolean',
      default: false,
      description:
        "Whether the request headers a backend lists in `forward_headers` (the simulator's timing and failure controls, a test server's hooks) reach it from this group's keys. Off for tenants: one of them could otherwise stall a whole pool.",
    },
  },
} as const

/** The key's own limits (keys.yaml and the admin API take the same three). */
export const keyExpiresAt = {
  type: ['string', 'integer'],
  description:
    'When the key stops working (401 "api key expired" from then on): an ISO 8601 date-time with its zone (`2027-01-31T00:00:00Z`), or epoch milliseconds.',
} as const

export const keyModels = {
  type: 'array',
  items: { type: 'string', minLength: 1 },
  minItems: 1,
  description:
    "Catalog ids and family names this key may use, within its group's `models` (each must be one the group may use). Unset: whatever the group may use.",
} as const

export const keyRequestsPerMinute = {
  type: 'integer',
  minimum: 1,
  description: 'Requests the key may make in any one minute; past it, 429 with Retry-After. Unset: no limit.',
} as const

export const keySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'group'],
  properties: {
    id: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$', description: 'The key id: what logs and records name.' },
    group: { type: 'string' },
    enabled: { type: 'boolean', default: true, description: 'Off: the key gets 403 "api key disabled".' },
    legacy: {
      type: 'boolean',
      default: false,
      description: 'Goes through the older gateway, which lacks some endpoints.',
    },
    hash: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$', description: 'sha256 of the secret, hex.' },
    demo: {
      type: 'boolean',
      default: false,
      description:
        'The demo key: secret from SLUICE_DEMO_KEY, else generated at first start and kept hashed in the data folder.',
    },
    budget: groupSchema.properties.budget,
    tokens_per_minute: groupSchema.properties.tokens_per_minute,
    expires_at: keyExpiresAt,
    models: keyModels,
    requests_per_minute: keyRequestsPerMinute,
  },
} as const

export const keysFileSchema = {
  $id: 'sluice:keys',
  type: 'object',
  additionalProperties: false,
  required: ['groups', 'keys'],
  properties: {
    groups: { type: 'object', additionalProperties: groupSchema },
    keys: { type: 'array', items: keySchema },
  },
} as const

export type KeysFile = FromSchema<typeof keysFileSchema>
export type GroupConfig = KeysFile['groups'][string]
export type KeyConfig = KeysFile['keys'][number]
