import type { FromSchema } from 'json-schema-to-ts'

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    redirect: {
      type: 'string',
      pattern: '^/[A-Za-z0-9/._-]*$',
      description: 'Answer 302 to this path of the gateway instead of serving a file (`/` → the portal).',
    },
    file: {
      type: 'string',
      pattern: '^[A-Za-z0-9._-]+$',
      description:
        "Serve this one built file (e.g. `index.html`, the page); without it, the file named by the route's `:file` parameter.",
    },
  },
} as const

export type PortalAssetsConfig = FromSchema<typeof configSchema>
