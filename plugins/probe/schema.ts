import type { FromSchema } from 'json-schema-to-ts'

/** `live`: the process answers (no I/O). `ready`: it can serve (stores, Redis, a backend). */
export const configSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { enum: ['live', 'ready'] },
  },
} as const

export type ProbeConfig = FromSchema<typeof configSchema>
