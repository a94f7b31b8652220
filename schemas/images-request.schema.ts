/**
 * The image generation request (POST /images/generations), in OpenAI's shape: a prompt, how many
 * images (`n`, 1 to 10 as OpenAI allows; a model's server may allow fewer and says so with a
 * 400), a size `WIDTHxHEIGHT` or `auto`, and `response_format`. The fields of gpt-image-1 and
 * dall-e-3 (quality, style, background, output_format …) are passed to the server as sent;
 * whether it honours them is the server's to say.
 */
import type { FromSchema } from 'json-schema-to-ts'

export const imagesRequestSchema = {
  $id: 'sluice:images-request',
  type: 'object',
  required: ['prompt'],
  properties: {
    model: { type: 'string' },
    prompt: { type: 'string', minLength: 1, maxLength: 32000 },
    n: { type: 'integer', minimum: 1, maximum: 10 },
    size: { type: 'string', pattern: '^(auto|[1-9][0-9]{0,4}x[1-9][0-9]{0,4})$' },
    response_format: { type: 'string', enum: ['b64_json', 'url'] },
    quality: { type: 'string', maxLength: 32 },
    style: { type: 'string', maxLength: 32 },
    background: { type: 'string', maxLength: 32 },
    output_format: { type: 'string', maxLength: 16 },
    output_compression: { type: 'integer', minimum: 0, maximum: 100 },
    moderation: { type: 'string', maxLength: 16 },
    user: { type: 'string' },
  },
} as const

export type ImagesRequest = FromSchema<typeof imagesRequestSchema>
