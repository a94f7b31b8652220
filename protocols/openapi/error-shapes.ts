/**
 * The error body of each pipeline `errors:` style as a JSON Schema, for the default response
 * of an OpenAPI operation (the shapes of protocols/{openai,anthropic,query}/error-body.ts and
 * the SOAP 1.1 fault of protocols/soap/fault.ts).
 */
export interface ErrorShape {
  readonly contentType: string
  readonly schema: Record<string, unknown>
  readonly description: string
}

const str = { type: 'string' } as const

export function errorShape(style: string): ErrorShape {
  switch (style) {
    case 'anthropic':
      return {
        contentType: 'application/json',
        description: 'An error in the Anthropic Messages API shape.',
        schema: {
          type: 'object',
          required: ['type', 'error'],
          properties: {
            type: { const: 'error' },
            error: { type: 'object', required: ['type', 'message'], properties: { type: str, message: str } },
          },
        },
      }
    case 'query':
      return {
        contentType: 'application/json',
        description: "An error in the Query service's shape.",
        schema: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['status', 'type', 'message'],
              properties: {
                status: { type: 'integer' },
                type: str,
                code: { type: ['string', 'integer'] },
                message: str,
              },
            },
          },
        },
      }
    case 'soap':
      return { contentType: 'text/xml', description: 'A SOAP 1.1 fault (HTTP 500).', schema: { type: 'string' } }
    default:
      return {
        contentType: 'application/json',
        description: 'An error in the OpenAI shape.',
        schema: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['message', 'type'],
              properties: {
                message: str,
                type: str,
                param: { type: ['string', 'null'] },
                code: { type: ['string', 'integer', 'null'] },
              },
            },
          },
        },
      }
  }
}
