/** The operations routes' JSON answers (pipelines/ops.yaml): the probes and the OpenAPI documents. */
export const probeSchema = {
  description: '`ok`, or (readiness, with 503) `unready`; `checks` holds each readiness check.',
  type: 'object',
  required: ['status'],
  properties: {
    status: { enum: ['ok', 'unready'] },
    checks: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['ok'],
        properties: { ok: { type: 'boolean' }, error: { type: 'string' } },
      },
    },
  },
} as const

export const openApiDocumentSchema = {
  description: 'An OpenAPI 3.1 document.',
  type: 'object',
  required: ['openapi', 'info', 'paths'],
  properties: {
    openapi: { type: 'string', pattern: '^3\\.1\\.' },
    info: { type: 'object' },
    paths: { type: 'object' },
  },
} as const
