import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    route: {
      type: 'string',
      minLength: 1,
      default: 'audio-speech',
      description: "The gateway route that speaks (kernel.call, under the project's key): POST /v1/audio/speech.",
    },
  },
} as const

export type QuerySpeechConfig = FromSchema<typeof configSchema>
