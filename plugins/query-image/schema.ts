import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    route: {
      type: 'string',
      minLength: 1,
      default: 'images-generations',
      description:
        "The gateway route the images are made through (kernel.call, under the project's key): OpenAI's images API.",
    },
  },
} as const

export type QueryImageConfig = FromSchema<typeof configSchema>
