import type { FromSchema } from 'json-schema-to-ts'

/** Options of the `soap-codec` step. */
export const configSchema = {
  type: 'object',
  description: 'SOAP 1.1 codec: parses the request envelope, renders the response, the WSDL and faults.',
  properties: {
    max_bytes: {
      type: 'integer',
      minimum: 256,
      maximum: 67108864,
      default: 1048576,
      description:
        'Largest request body accepted, in bytes; larger bodies get a soap:Client fault (TooLarge) without being buffered.',
    },
    max_depth: {
      type: 'integer',
      minimum: 4,
      maximum: 256,
      default: 32,
      description:
        'Deepest element nesting accepted (soap:Envelope is level 1); deeper documents get a soap:Client fault (TooDeep).',
    },
    understood_headers: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      uniqueItems: true,
      default: [],
      description:
        'SOAP header entries that a step of this route handles, as `{namespace}LocalName` (or a bare local name). A header marked mustUnderstand="1" that is not listed gets a soap:MustUnderstand fault.',
    },
  },
  additionalProperties: false,
} as const

export type SoapCodecConfig = FromSchema<typeof configSchema>
