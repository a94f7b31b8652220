/**
 * A pipeline file: named routes, each a transport, an optional body schema and an ordered
 * list of steps. Every step is validated (items is a schema, not a tuple), and each step's
 * options are validated against its plugin's own schema by the loader.
 */
import type { FromSchema } from 'json-schema-to-ts'
import { responseNames } from './responses.js'

const step = {
  description: 'A plugin name alone, or a one-key object {plugin-name: options}.',
  oneOf: [
    { type: 'string', pattern: '^[a-z][a-z0-9-]*$' },
    {
      type: 'object',
      minProperties: 1,
      maxProperties: 1,
      propertyNames: { pattern: '^[a-z][a-z0-9-]*$' },
      additionalProperties: { type: ['object', 'null'] },
    },
  ],
} as const

export const routeSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'steps'],
  properties: {
    id: {
      type: 'string',
      pattern: '^[a-z][a-z0-9-]*$',
      description: 'Unique across all pipelines; kernel.call names routes by it.',
    },
    http: {
      type: 'string',
      pattern: '^(GET|POST|PUT|PATCH|DELETE) /\\S*$',
      description:
        'Method and path under the prefix, e.g. `POST /chat/completions`; `:name` marks a parameter, `:name+` one that may hold slashes.',
    },
    internal: { type: 'boolean', default: false, description: 'Callable only in-process (kernel.call).' },
    ws: {
      type: 'string',
      pattern: '^/\\S*$',
      description:
        'A WebSocket path under the prefix (e.g. `/ws`): each JSON text message on a socket there runs a route of that path as an Exchange (docs/api-reference.md, "Query service over WebSocket"). The first route of a path authenticates the upgrade with its steps up to the one providing `principal`.',
    },
    match: {
      type: 'object',
      minProperties: 1,
      additionalProperties: { type: ['string', 'null'] },
      description:
        'On a `ws:` path served by several routes: the message fields whose values pick this route (e.g. `{action: query_compare}`; `null`: the field is absent); the first route, in file order, whose fields all match runs the message.',
    },
    body: {
      type: 'string',
      description:
        'Name of a schema in schemas/ (e.g. chat-request) the JSON body must satisfy; `json` for any JSON; `raw` to leave the body unread for a plugin.',
    },
    response: {
      type: 'string',
      enum: responseNames,
      description:
        'Name of what the route answers when it succeeds, from schemas/responses.ts (e.g. chat-completion): its statuses, content types and body schemas, for the OpenAPI document. Only these names load.',
    },
    body_limit_bytes: {
      type: 'integer',
      minimum: 1,
      description:
        "Largest request body of this route, below the server's `body_limit_bytes` (e.g. 32 MiB on the Responses and Messages doors).",
    },
    steps: { type: 'array', minItems: 1, items: step },
  },
} as const

export const pipelineSchema = {
  $id: 'sluice:pipeline',
  type: 'object',
  additionalProperties: false,
  required: ['pipeline', 'routes'],
  properties: {
    pipeline: { type: 'string', pattern: '^[a-z][a-z0-9-]*$' },
    prefix: {
      type: 'string',
      pattern: '^(/[^/\\s]+)*$',
      default: '',
      description: 'Path prefix of every route, e.g. /v1.',
    },
    errors: {
      description:
        "How the kernel renders errors of this pipeline: `openai` (JSON), `anthropic` (the Messages API JSON), `query` (the Query service's JSON) or `soap` (SOAP 1.1 faults), or `{style: soap, fault_namespace}`.",
      default: 'openai',
      oneOf: [
        { type: 'string', enum: ['openai', 'anthropic', 'soap', 'query'] },
        {
          type: 'object',
          additionalProperties: false,
          required: ['style'],
          properties: {
            style: { type: 'string', enum: ['openai', 'anthropic', 'soap', 'query'] },
            fault_namespace: {
              type: 'string',
              minLength: 1,
              description:
                "soap: namespace of the `<f:error><f:code>` entry in a fault's detail (default urn:sluice:soap-fault).",
            },
          },
        },
      ],
    },
    cors: {
      type: 'object',
      additionalProperties: false,
      required: ['origins'],
      description:
        'Cross-origin requests from browsers to the routes of this pipeline: the kernel answers preflights (OPTIONS) and adds the allow headers to replies, errors included. Without `cors:`, no CORS headers and OPTIONS gets 405.',
      properties: {
        origins: {
          type: 'array',
          minItems: 1,
          items: { type: 'string', pattern: '^(\\*|https?://(\\*\\.)?[A-Za-z0-9.-]+(:([0-9]{1,5}|\\*))?)$' },
          description:
            'Allowed origins: exact (`https://app.example.com`), any port (`http://localhost:*`), any subdomain (`https://*.example.com`), or `*` (any origin; not with credentials).',
        },
        methods: {
          type: 'array',
          items: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
          description: "Methods a preflight allows; default: the methods of the path's routes.",
        },
        headers: {
          type: 'array',
          items: { type: 'string', pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$" },
          description:
            'Request headers a preflight allows (e.g. authorization, content-type); default: those the browser asks for.',
        },
        expose_headers: {
          type: 'array',
          items: { type: 'string', pattern: "^([A-Za-z0-9!#$%&'+.^_`|~-]+|\\*)$" },
          description: 'Response headers a page may read (e.g. x-gateway-request-id); `*`: all (not with credentials).',
        },
        credentials: {
          type: 'boolean',
          default: false,
          description:
            'Allow cookies and HTTP authentication (Access-Control-Allow-Credentials); needs explicit origins and header names.',
        },
        max_age: {
          type: 'integer',
          minimum: 0,
          maximum: 86400,
          default: 600,
          description: 'Seconds a browser may cache a preflight answer.',
        },
      },
      if: { properties: { credentials: { const: true } }, required: ['credentials'] },
      then: {
        properties: {
          origins: { not: { contains: { const: '*' } } },
          expose_headers: { not: { contains: { const: '*' } } },
          headers: { not: { contains: { const: '*' } } },
        },
      },
    },
    routes: { type: 'array', minItems: 1, items: routeSchema },
  },
} as const

export type PipelineFile = FromSchema<typeof pipelineSchema>
export type RouteConfig = PipelineFile['routes'][number]
export type ErrorsSetting = NonNullable<PipelineFile['errors']>
