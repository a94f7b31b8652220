import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    images: {
      type: 'string',
      enum: ['check', 'allow'],
      default: 'check',
      description: '`check`: image parts only for vision models, or text-only models whose vision boon is on; `allow`: pass them all. Either way, image URLs must be a base64 data URL or a public https:// URL.',
    },
  },
} as const

export type CapabilitiesConfig = FromSchema<typeof configSchema>
