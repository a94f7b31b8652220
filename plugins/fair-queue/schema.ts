import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    prompt_weight: {
      type: 'number',
      minimum: 0,
      default: 1,
      description: 'Service counted per prompt token when comparing what groups and keys were served.',
    },
    completion_weight: {
      type: 'number',
      minimum: 0,
      default: 1,
      description: 'Service counted per reply token (VTC suggests 2: generating costs more than reading).',
    },
    anticipation_ms: {
      type: 'integer',
      minimum: 0,
      maximum: 1000,
      default: 50,
      description:
        'How long a freed slot waits for the next request of the key that freed it, when that key is the least served and has nothing waiting yet (a client sending one request after another). 0: strictly work-conserving.',
    },
  },
} as const

export type FairQueueConfig = FromSchema<typeof configSchema>
