/**
 * The Responses API request (`POST /v1/responses`). Checks the shape only; what each field
 * means, and the 400s for what a chat model server cannot do, are the openai-responses
 * plugin's (protocols/openai/responses-request.ts). Fields it does not act on are accepted and
 * ignored, as OpenAI-compatible servers do.
 */
import type { FromSchema } from 'json-schema-to-ts'

const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] }) as const

export const responsesRequestSchema = {
  $id: 'sluice:responses-request',
  type: 'object',
  properties: {
    model: { type: 'string' },
    input: {
      anyOf: [
        { type: 'string' },
        { type: 'array', items: { type: 'object', properties: { type: { type: 'string' } } } },
      ],
    },
    instructions: nullable({ type: 'string' }),
    tools: { type: 'array', items: { type: 'object', required: ['type'], properties: { type: { type: 'string' } } } },
    tool_choice: { anyOf: [{ type: 'string' }, { type: 'object' }] },
    text: nullable({
      type: 'object',
      properties: { format: { type: 'object', required: ['type'], properties: { type: { type: 'string' } } } },
    }),
    reasoning: nullable({ type: 'object', properties: { effort: { type: ['string', 'null'] } } }),
    max_output_tokens: { type: ['integer', 'null'], minimum: 1 },
    temperature: { type: ['number', 'null'] },
    top_p: { type: ['number', 'null'] },
    parallel_tool_calls: { type: ['boolean', 'null'] },
    metadata: nullable({ type: 'object', maxProperties: 16, additionalProperties: { type: 'string', maxLength: 512 } }),
    user: { type: 'string' },
    store: { type: ['boolean', 'null'] },
    previous_response_id: { type: ['string', 'null'] },
    stream: { type: ['boolean', 'null'] },
    include: nullable({ type: 'array', items: { type: 'string' } }),
  },
} as const

export type ResponsesRequestBody = FromSchema<typeof responsesRequestSchema>
