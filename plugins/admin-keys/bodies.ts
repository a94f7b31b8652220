/** Request bodies of the keys admin routes, validated through the kernel's ajv. */
import { groupSchema, keyExpiresAt, keyModels, keyRequestsPerMinute } from '../../schemas/keys.schema.js'

const termBudget = {
  type: 'object',
  additionalProperties: false,
  required: ['amount'],
  properties: {
    amount: { type: 'number', minimum: 0 },
    term: { type: 'string', enum: ['day', 'week', 'month'], default: 'month' },
  },
} as const

export const createKeyBody = {
  type: 'object',
  additionalProperties: false,
  required: ['group'],
  properties: {
    id: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' },
    group: { type: 'string', minLength: 1 },
    enabled: { type: 'boolean' },
    legacy: { type: 'boolean' },
    budget: termBudget,
    tokens_per_minute: groupSchema.properties.tokens_per_minute,
    expires_at: keyExpiresAt,
    models: keyModels,
    requests_per_minute: keyRequestsPerMinute,
  },
} as const

export const updateKeyBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    group: { type: 'string', minLength: 1 },
    enabled: { type: 'boolean' },
    budget: { anyOf: [termBudget, { type: 'null' }] },
    tokens_per_minute: { anyOf: [groupSchema.properties.tokens_per_minute, { type: 'null' }] },
    expires_at: { anyOf: [keyExpiresAt, { type: 'null' }] },
    models: { anyOf: [keyModels, { type: 'null' }] },
    requests_per_minute: { anyOf: [keyRequestsPerMinute, { type: 'null' }] },
  },
} as const
