/**
 * OpenAPI 3.1 documents built from pipeline files as parsed (no I/O here): one per HTTP
 * pipeline, or all merged. Paths keep the pipeline prefix; `:id` and `:id+` become `{id}`.
 * Request bodies are the routes' `body:` schemas (JSON Schema 2020-12 is OpenAPI 3.1's own
 * dialect, so they are used as they are, without their `$id`); the default response is the
 * pipeline's error shape; a route with an authenticating step requires a bearer token.
 */
import { errorShape } from './error-shapes.js'

export interface OpenApiRoute {
  readonly id: string
  /** `METHOD /path` under the prefix. */
  readonly http: string
  readonly body?: string
  /** Step names, in order. */
  readonly steps: readonly string[]
}

export interface OpenApiPipeline {
  readonly name: string
  readonly prefix: string
  readonly errors: string
  readonly routes: readonly OpenApiRoute[]
}

export interface OpenApiInput {
  readonly title: string
  readonly version: string
  readonly pipelines: readonly OpenApiPipeline[]
  readonly bodySchemas: Readonly<Record<string, object>>
  /** Steps that authenticate the caller (those providing a principal). */
  readonly authSteps: ReadonlySet<string>
  /** Steps that let a caller on by the portal's session cookie (`name` or `name:action`). */
  readonly cookieSteps?: ReadonlySet<string>
}

/** The portal's session cookie as an OpenAPI security scheme. */
const PORTAL_SESSION = {
  type: 'apiKey',
  in: 'cookie',
  name: 'sluice_portal',
  description:
    "The operator portal's session, from POST /portal/api/session; changes also need its x-csrf-token header.",
}

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> }

/** `/v1/files/:id+` → `/v1/files/{id}`, with the names of its parameters. */
export function openApiPath(prefix: string, p: string): { path: string; params: string[] } {
  const params: string[] = []
  const path = (prefix + p).replace(/:([A-Za-z_][A-Za-z0-9_]*)\+?/g, (_, name: string) => {
    params.push(name)
    return `{${name}}`
  })
  return { path, params }
}

/** A body schema without `$id` (and `$schema`), so that it can sit inline in the document. */
function inlineSchema(schema: object): Record<string, unknown> {
  const { $id: _id, $schema: _s, ...rest } = schema as Record<string, unknown>
  return rest
}

function operation(
  route: OpenApiRoute,
  pipeline: OpenApiPipeline,
  input: OpenApiInput,
  params: string[],
): Record<string, unknown> {
  const error = errorShape(pipeline.errors)
  const op: Record<string, unknown> = {
    operationId: route.id,
    tags: [pipeline.name],
    responses: {
      '200': { description: 'Success.' },
      default: { description: error.description, content: { [error.contentType]: { schema: error.schema } } },
    },
  }
  if (params.length > 0)
    op.parameters = params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }))
  const schema = route.body ? input.bodySchemas[route.body] : undefined
  if (schema) op.requestBody = { required: true, content: { 'application/json': { schema: inlineSchema(schema) } } }
  else if (route.body === 'json') op.requestBody = { required: true, content: { 'application/json': { schema: {} } } }
  else if (route.body === 'raw') op.requestBody = { content: { '*/*': { schema: {} } } }
  if (route.steps.some((s) => input.authSteps.has(s))) op.security = [{ bearer: [] }]
  else if (route.steps.some((s) => input.cookieSteps?.has(s))) op.security = [{ portalSession: [] }]
  return op
}

export function buildOpenApi(input: OpenApiInput): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const pipeline of input.pipelines) {
    for (const route of pipeline.routes) {
      const [method, p] = route.http.split(' ') as [string, string]
      const { path, params } = openApiPath(pipeline.prefix, p)
      paths[path] ??= {}
      paths[path][method.toLowerCase()] = operation(route, pipeline, input, params)
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: input.title,
      version: input.version,
      description:
        'Generated from the loaded pipelines. The SOAP service catalog is described by its WSDL at [/catalog?wsdl](/catalog?wsdl).',
    },
    externalDocs: { description: 'WSDL of the SOAP service catalog', url: '/catalog?wsdl' },
    tags: input.pipelines.map((p) => ({ name: p.name })),
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        ...(input.cookieSteps ? { portalSession: PORTAL_SESSION } : {}),
      },
    },
  }
}
