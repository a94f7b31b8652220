import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    images: {
      type: 'string',
      enum: ['check', 'allow'],
      default: 'check',
      description:
        '`check`: image parts only for vision models, or text-only models whose vision boon is on; `allow`: pass them all. Either way, image URLs must be a base64 data URL or a public https:// URL.',
    },
    max_images: {
      type: 'integer',
      minimum: 0,
      maximum: 1000,
      default: 20,
      description:
        'Most image parts a request may carry (each may cost a model server a download, or a helper call with the vision boon); more get 400.',
    },
  },
} as const

export type CapabilitiesConfig = FromSchema<typeof configSchema>
