import type { FromSchema } from 'json-schema-to-ts'

/** Options of the `service-catalog` step. The catalog's content lives in its own config file. */
export const configSchema = {
  type: 'object',
  description:
    'The SOAP service catalog: seven operations over folders and services from static YAML or a live REST catalog.',
  properties: {
    file: {
      type: 'string',
      pattern: '^[A-Za-z0-9._-]+\\.ya?ml$',
      default: 'catalog.yaml',
      description:
        'The catalog settings file, in the config folder (namespace, public URL, tokens, access, source, folders and services).',
    },
  },
  additionalProperties: false,
} as const

export type ServiceCatalogConfig = FromSchema<typeof configSchema>
