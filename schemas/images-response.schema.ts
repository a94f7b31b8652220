/**
 * The images reply (POST /v1/images/generations) in OpenAI's images API: the model server's
 * body as it sent it (plugins/image-generation checks that `data` is a list).
 */
export const imagesResponseSchema = {
  description: "Images in OpenAI's shape: `b64_json` (or `url`) per image; `usage` as gpt-image-1 reports it.",
  type: 'object',
  required: ['data'],
  properties: {
    created: { type: 'integer' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          b64_json: { type: 'string' },
          url: { type: 'string' },
          revised_prompt: { type: 'string' },
        },
      },
    },
    output_format: { type: 'string' },
    quality: { type: 'string' },
    size: { type: 'string' },
    usage: {
      type: 'object',
      properties: {
        input_tokens: { type: 'integer', minimum: 0 },
        output_tokens: { type: 'integer', minimum: 0 },
        total_tokens: { type: 'integer', minimum: 0 },
        input_tokens_details: { type: 'object' },
      },
    },
  },
} as const
