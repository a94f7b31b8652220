import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    action: {
      type: 'string',
      enum: ['create', 'retrieve', 'delete', 'input-items'],
      default: 'create',
      description:
        "`create` (POST /responses): translates the Responses request into a chat request for the steps after it, and their chat reply into a Response. `retrieve`, `delete` and `input-items` answer from the key's stored responses (GET and DELETE /responses/:id, GET /responses/:id/input_items).",
    },
  },
} as const

export type OpenaiResponsesConfig = FromSchema<typeof configSchema>
