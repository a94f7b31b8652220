/**
 * `config/projects.yaml`: the Query service's projects (the static seed; the admin API adds
 * more). A project names the gateway key that carries its model calls, its defaults, the
 * models of `query_compare`, and its tokens. Secrets are never written here: a token holds the
 * SHA-256 of its secret, or (a demo token) takes its secret from the environment or the data
 * folder, like the demo key.
 */
import type { FromSchema } from 'json-schema-to-ts'
import { queryDefaultsSchema } from './query-request.schema.js'

export const PROJECT_ID = '^[A-Za-z0-9_.-]{1,64}$'

export const projectTokenSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'kind'],
  properties: {
    id: { type: 'string', pattern: PROJECT_ID, description: 'The token id: what logs name.' },
    kind: { type: 'string', enum: ['developer', 'service'] },
    hash: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$', description: 'sha256 of the secret, hex.' },
    demo: {
      type: 'boolean',
      default: false,
      description:
        'A demo token: secret from SLUICE_DEMO_DEV_TOKEN (developer) or SLUICE_DEMO_SERVICE_TOKEN (service), else generated at first start and kept hashed in the data folder.',
    },
  },
} as const

export const projectSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['key'],
  properties: {
    key: {
      type: 'string',
      minLength: 1,
      description:
        "The gateway key (keys.yaml or the admin API) whose budget, token window and usage records carry the project's model calls.",
    },
    defaults: { ...queryDefaultsSchema, default: {} },
    compare_models: {
      type: 'array',
      maxItems: 8,
      uniqueItems: true,
      items: { type: 'string', minLength: 1 },
      default: [],
      description: 'Models that answer beside the requested one on query_compare.',
    },
    tokens: { type: 'array', items: projectTokenSchema, default: [] },
  },
} as const

export const projectsFileSchema = {
  $id: 'sluice:projects',
  type: 'object',
  additionalProperties: false,
  properties: {
    projects: {
      type: 'object',
      propertyNames: { pattern: PROJECT_ID },
      additionalProperties: projectSchema,
      default: {},
    },
  },
} as const

export type ProjectsFile = FromSchema<typeof projectsFileSchema>
export type ProjectConfig = FromSchema<typeof projectSchema>
