import type { FromSchema } from 'json-schema-to-ts'

/** No options: the voices come from each model's `audio.voices` in config/models.yaml. */
export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {},
} as const

export type SpeechVoicesConfig = FromSchema<typeof configSchema>
