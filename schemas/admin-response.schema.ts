/**
 * The admin API's answers (pipelines/admin.yaml; the portal's API answers the same for the same
 * plugins): keys and groups (never a secret but in the one answer that makes it), usage
 * summaries and records, the catalog with its live queue, projects and their tokens. Times are
 * ISO 8601 (UTC). Objects are open: a field added later is not a breaking change.
 */
import type { FromSchema } from 'json-schema-to-ts'

const isoTime = { type: 'string', format: 'date-time' } as const
const isoTimeOrNull = { type: ['string', 'null'], format: 'date-time' } as const
const source = {
  enum: ['config', 'store'],
  description: '`config`: the seed file; `store`: made by the admin API.',
} as const
const count = { type: 'integer', minimum: 0 } as const
const amount = { type: 'number', minimum: 0 } as const
const termBudget = {
  type: ['object', 'null'],
  required: ['amount', 'term'],
  properties: { amount, term: { enum: ['day', 'week', 'month'] } },
} as const
const perMinute = { type: ['integer', 'null'], minimum: 1 } as const

/** A list in OpenAI's manner: `{object: list, data}`. */
export function listOf<Item extends object>(item: Item, description: string) {
  return {
    description,
    type: 'object',
    required: ['object', 'data'],
    properties: { object: { const: 'list' }, data: { type: 'array', items: item } },
  } as const
}

export const groupViewSchema = {
  description: 'A group as shown.',
  type: 'object',
  required: ['id', 'models', 'weight', 'budget', 'tokens_per_minute', 'source'],
  properties: {
    id: { type: 'string' },
    models: { type: 'array', items: { type: 'string' } },
    weight: { type: 'number', exclusiveMinimum: 0 },
    budget: termBudget,
    tokens_per_minute: perMinute,
    source,
  },
} as const

export const keyViewSchema = {
  description: 'A key as shown: never its secret or digest.',
  type: 'object',
  required: ['id', 'group', 'enabled', 'legacy', 'budget', 'tokens_per_minute', 'source', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string' },
    group: { type: 'string' },
    enabled: { type: 'boolean' },
    legacy: { type: 'boolean' },
    budget: termBudget,
    tokens_per_minute: perMinute,
    source,
    created_at: isoTimeOrNull,
    updated_at: isoTimeOrNull,
  },
} as const

export const keySecretSchema = {
  description: 'A key and its secret: the only answer that shows the secret.',
  type: 'object',
  required: ['key', 'secret'],
  properties: { key: keyViewSchema, secret: { type: 'string', pattern: '^sk-' } },
} as const

export const deletedSchema = {
  description: 'What was deleted.',
  type: 'object',
  required: ['id', 'deleted'],
  properties: { id: { type: 'string' }, deleted: { const: true } },
} as const

const period = { from: isoTime, to: isoTime } as const

export const usageSummarySchema = {
  description:
    'Usage per key, model or group (`by`) over a period: client requests and what they were told, internal calls apart, and what budgets were charged for both.',
  type: 'object',
  required: ['object', 'by', 'from', 'to', 'data'],
  properties: {
    object: { const: 'list' },
    by: { enum: ['key', 'model', 'group'] },
    ...period,
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: [
          'requests',
          'prompt_tokens',
          'completion_tokens',
          'cached_tokens',
          'total_tokens',
          'audio_seconds',
          'characters',
          'value',
          'internal',
          'charged',
          'last_at',
        ],
        properties: {
          key: { type: 'string' },
          model: { type: 'string' },
          group: { type: 'string' },
          requests: count,
          prompt_tokens: count,
          completion_tokens: count,
          cached_tokens: count,
          total_tokens: count,
          audio_seconds: { type: 'number', minimum: 0 },
          characters: count,
          value: amount,
          internal: {
            type: 'object',
            required: ['requests', 'prompt_tokens', 'completion_tokens'],
            properties: { requests: count, prompt_tokens: count, completion_tokens: count },
          },
          charged: amount,
          last_at: isoTime,
        },
      },
    },
  },
} as const

export const usageRecordViewSchema = {
  description: 'A usage record: one per client request that reached a model, and one per internal call it caused.',
  type: 'object',
  required: [
    'at',
    'request_id',
    'parent_request_id',
    'key',
    'group',
    'route',
    'model_requested',
    'model',
    'upstream_model',
    'prompt_tokens',
    'completion_tokens',
    'cached_tokens',
    'audio_seconds',
    'characters',
    'usage_source',
    'value',
    'charged',
    'cached',
    'fallback_from',
    'status',
    'outcome',
    'queue_ms',
    'ttft_ms',
    'total_ms',
  ],
  properties: {
    at: isoTime,
    request_id: { type: 'string' },
    parent_request_id: { type: ['string', 'null'] },
    key: { type: 'string' },
    group: { type: 'string' },
    route: { type: 'string' },
    model_requested: { type: 'string' },
    model: { type: 'string' },
    upstream_model: { type: ['string', 'null'] },
    prompt_tokens: count,
    completion_tokens: count,
    cached_tokens: count,
    audio_seconds: { type: 'number', minimum: 0 },
    characters: count,
    usage_source: { enum: ['reported', 'estimated', 'none'] },
    value: amount,
    charged: amount,
    cached: { type: 'boolean' },
    fallback_from: { type: ['string', 'null'] },
    status: { type: 'integer' },
    outcome: { enum: ['done', 'failed', 'aborted'] },
    queue_ms: { type: ['number', 'null'], minimum: 0 },
    ttft_ms: { type: ['number', 'null'], minimum: 0 },
    total_ms: { type: 'number', minimum: 0 },
  },
} as const

export const usageRecordsSchema = {
  description: 'Usage records, newest first.',
  type: 'object',
  required: ['object', 'from', 'to', 'data'],
  properties: { object: { const: 'list' }, ...period, data: { type: 'array', items: usageRecordViewSchema } },
} as const

const queueLoad = { waiting: count, running: count } as const

export const adminModelsSchema = {
  description:
    'The catalog as an operator sees it (retired models too) and, per backend pool, its capacity and the requests waiting and running now in this process.',
  type: 'object',
  required: ['object', 'at', 'models', 'families', 'backends'],
  properties: {
    object: { const: 'portal.models' },
    at: isoTime,
    models: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'model_type', 'backend', 'capabilities', 'reasoning', 'boons', 'status', 'retired'],
        properties: {
          id: { type: 'string' },
          model_type: { type: 'string' },
          backend: { type: 'string' },
          context_window: { type: ['integer', 'null'] },
          capabilities: { type: 'array', items: { type: 'string' } },
          reasoning: { type: 'string' },
          boons: { type: 'array', items: { type: 'string' } },
          status: { enum: ['active', 'deprecated'] },
          replacement: { type: ['string', 'null'] },
          deprecated_at: { type: ['string', 'null'] },
          retire_at: { type: ['string', 'null'] },
          retired: { type: 'boolean' },
        },
      },
    },
    families: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'default_level', 'members'],
        properties: {
          id: { type: 'string' },
          default_level: { type: 'string' },
          members: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
    },
    backends: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'capacity', 'waiting', 'running', 'models'],
        properties: {
          name: { type: 'string' },
          capacity: { type: 'integer', minimum: 1 },
          ...queueLoad,
          models: {
            type: 'array',
            items: {
              type: 'object',
              required: ['model', 'waiting', 'running'],
              properties: { model: { type: 'string' }, ...queueLoad },
            },
          },
        },
      },
    },
  },
} as const

export const projectViewSchema = {
  description: 'A Query service project as shown; `key` is the gateway key that carries its model calls.',
  type: 'object',
  required: ['id', 'key', 'defaults', 'compare_models', 'source', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string' },
    key: { type: 'string' },
    defaults: { type: 'object' },
    compare_models: { type: 'array', items: { type: 'string' } },
    source,
    created_at: isoTimeOrNull,
    updated_at: isoTimeOrNull,
  },
} as const

export const projectTokenViewSchema = {
  description: 'A project token as shown: never its secret or digest.',
  type: 'object',
  required: ['id', 'project', 'kind', 'source', 'created_at'],
  properties: {
    id: { type: 'string' },
    project: { type: 'string' },
    kind: { enum: ['developer', 'service'] },
    source,
    created_at: isoTimeOrNull,
  },
} as const

export const projectTokenSecretSchema = {
  description: 'A token and its secret: the only answer that shows the secret.',
  type: 'object',
  required: ['token', 'secret'],
  properties: { token: projectTokenViewSchema, secret: { type: 'string', pattern: '^qt-' } },
} as const

export const projectTokenDeletedSchema = {
  description: 'The token deleted; it stops at once.',
  type: 'object',
  required: ['id', 'project', 'deleted'],
  properties: { id: { type: 'string' }, project: { type: 'string' }, deleted: { const: true } },
} as const

export type GroupView = FromSchema<typeof groupViewSchema>
export type UsageRecordView = FromSchema<typeof usageRecordViewSchema>
export type ProjectView = FromSchema<typeof projectViewSchema>
export type ProjectTokenView = FromSchema<typeof projectTokenViewSchema>
