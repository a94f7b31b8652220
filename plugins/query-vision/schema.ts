import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    route: {
      type: 'string',
      minLength: 1,
      default: 'query-chat',
      description:
        "The internal chat route that answers (kernel.call under the project's key): chat with boons, so a text-only model gets the image described.",
    },
    max_image_bytes: {
      type: 'integer',
      minimum: 1,
      default: 20971520,
      description:
        'Largest image, in bytes of decoded data (20 MiB, as the verdicts route). A URL is fetched by the model server, not counted here.',
    },
  },
} as const

export type QueryVisionConfig = FromSchema<typeof configSchema>
