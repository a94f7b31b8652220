import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    route: {
      type: 'string',
      default: 'chat-internal',
      description:
        'In-process route through which helper models and every round of a tool boon are called (queued, budgeted, mapped and recorded like any request).',
    },
    describe_prompt: {
      type: 'string',
      default: 'Describe this image in detail for someone who cannot see it. Include any text it contains.',
      description: 'What the vision helper is asked for each image.',
    },
    describe_max_tokens: {
      type: 'integer',
      minimum: 16,
      default: 400,
      description: 'Longest description of one image.',
    },
    speculation_question: {
      type: 'string',
      minLength: 1,
      default: "Is the assistant's last reply a correct and complete answer to the conversation before it?",
      description:
        'What the large model is asked about a draft (speculation); the line asking for one label, yes or no, is added.',
    },
    max_rounds: {
      type: 'integer',
      minimum: 1,
      maximum: 10,
      default: 3,
      description:
        'Most rounds in which the model may call the web_search / generate_image tools; the round after them is asked without those tools, so it answers.',
    },
    search_route: {
      type: 'string',
      default: 'web-search-internal',
      description: "In-process route that runs the web_search tool's searches (recorded under the caller's key).",
    },
    image_route: {
      type: 'string',
      default: 'images-generations',
      description:
        "Route that runs the generate_image tool with the boon's helper image model (queued, budgeted, recorded).",
    },
    image_size: {
      type: 'string',
      pattern: '^(auto|[1-9][0-9]{0,4}x[1-9][0-9]{0,4})$',
      default: '1024x1024',
      description: 'Size of a generated image.',
    },
  },
} as const

export type BoonsConfig = FromSchema<typeof configSchema>
