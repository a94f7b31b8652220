/** The `image:` settings of a simulated image-generation model (config/simulator.yaml, kind: image). */

export const simImageSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'Image generation (kind: image): the sizes served, images per request, and the time an image takes.',
  properties: {
    sizes: {
      type: 'array',
      minItems: 1,
      items: { type: 'string', pattern: '^[1-9][0-9]{0,3}x[1-9][0-9]{0,3}$' },
      default: ['1024x1024', '512x512', '256x256'],
      description: 'Sizes served, WIDTHxHEIGHT; the first is what `size: auto` (or no size) gets. Others get 400.',
    },
    max_images: {
      type: 'integer',
      minimum: 1,
      maximum: 10,
      default: 4,
      description: 'Largest `n` of one request; more gets 400.',
    },
    steps: {
      type: 'integer',
      minimum: 0,
      default: 20,
      description:
        'Denoising steps per image, each paid at the inter-token latency (itl_ms) after the time to first token.',
    },
  },
} as const
