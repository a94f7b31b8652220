import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    route: { type: 'string', default: 'chat-internal', description: 'In-process route through which helper models are called (queued, mapped and recorded like any request).' },
    describe_prompt: {
      type: 'string',
      default: 'Describe this image in detail for someone who cannot see it. Include any text it contains.',
      description: 'What the vision helper is asked for each image.',
    },
    describe_max_tokens: { type: 'integer', minimum: 16, default: 400, description: 'Longest description of one image.' },
    speculation_question: {
      type: 'string',
      minLength: 1,
      default: "Is the assistant's last reply a correct and complete answer to the conversation before it?",
      description: 'What the large model is asked about a draft (speculation); the line asking for one label, yes or no, is added.',
    },
  },
} as const

export type BoonsConfig = FromSchema<typeof configSchema>
