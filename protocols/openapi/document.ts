/**
 * OpenAPI 3.1 documents built from pipeline files as parsed (no I/O here): one per HTTP
 * pipeline, or all merged. Paths keep the pipeline prefix; `:id` and `:id+` become `{id}`.
 * Request bodies are the routes' `body:` schemas and success responses their `response:`
 * (schemas/responses.ts; JSON Schema 2020-12 is OpenAPI 3.1's own dialect, so schemas are used
 * as they are, without their `$id`). Error responses: the statuses the route's steps may answer
 * with (`stepErrors`) and those of reading its body, each with the pipeline's error shape (a
 * component), and `default` for the rest; a route with an authenticating step requires a bearer
 * token.
 */
import type { ResponseSpec } from '../../schemas/responses.js'
import { errorShape, type ErrorShape } from './error-shapes.js'

export interface OpenApiRoute {
  readonly id: string
  /** `METHOD /path` under the prefix. */
  readonly http: string
  readonly body?: string
  /** The name of its success response in `responseSchemas`. */
  readonly response?: string
  /** Step names, in order (`name`, or `name:action` for a step with an `action` option). */
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
  readonly responseSchemas: Readonly<Record<string, ResponseSpec>>
  /** The error statuses a step may answer with, and why (by the step's name as in `steps`). */
  readonly stepErrors: (step: string) => Readonly<Record<number, string>>
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

/** Short names of the error statuses, for their descriptions. */
const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal error',
  502: 'Bad gateway',
  503: 'Unavailable',
  504: 'Gateway timeout',
}

/** The component name of each error style's body. */
const ERROR_COMPONENTS: Readonly<Record<string, string>> = {
  openai: 'OpenAIError',
  anthropic: 'AnthropicError',
  query: 'QueryError',
  soap: 'SoapFault',
}
const errorComponent = (style: string) => ERROR_COMPONENTS[style] ?? ERROR_COMPONENTS.openai!

/** The statuses of reading a route's body (kernel/transports/body.ts), before any step sees it. */
function bodyErrors(body: string | undefined): Record<number, string> {
  if (!body) return {}
  if (body === 'raw') return { 413: 'request body too large' }
  const json = 'request body is not valid JSON · nested deeper than limits.json_max_depth'
  return {
    400: body === 'json' ? json : `${json} · invalid request: … (the body breaks the route's schema)`,
    413: 'request body too large',
  }
}

/**
 * Every error status of a route, with its reasons: its body's, then each step's in order. A
 * SOAP pipeline answers every error as a fault with HTTP 500, so its statuses fold into 500.
 */
export function routeErrors(
  route: OpenApiRoute,
  style: string,
  stepErrors: OpenApiInput['stepErrors'],
): Map<number, string[]> {
  const out = new Map<number, string[]>()
  const add = (errors: Readonly<Record<number, string>>) => {
    for (const [status, reason] of Object.entries(errors)) {
      const at = style === 'soap' ? 500 : Number(status)
      const reasons = out.get(at) ?? []
      if (!reasons.includes(reason)) reasons.push(reason)
      out.set(at, reasons)
    }
  }
  add(bodyErrors(route.body))
  for (const step of route.steps) add(stepErrors(step))
  return new Map([...out].sort(([a], [b]) => a - b))
}

function errorResponse(shape: ErrorShape, style: string, description: string): Record<string, unknown> {
  return {
    description,
    content: { [shape.contentType]: { schema: { $ref: `#/components/schemas/${errorComponent(style)}` } } },
  }
}

/** A success response of `responseSchemas`: each content type's schema, inline. */
function successResponse(r: ResponseSpec[string]): Record<string, unknown> {
  if (!r.content) return { description: r.description }
  const content = Object.fromEntries(
    Object.entries(r.content).map(([type, schema]) => [type, { schema: inlineSchema(schema) }]),
  )
  return { description: r.description, content }
}

function operation(
  route: OpenApiRoute,
  pipeline: OpenApiPipeline,
  input: OpenApiInput,
  params: string[],
): Record<string, unknown> {
  const error = errorShape(pipeline.errors)
  const responses: Record<string, unknown> = {}
  const success = route.response ? input.responseSchemas[route.response] : undefined
  if (success) for (const [status, r] of Object.entries(success)) responses[status] = successResponse(r)
  else responses['200'] = { description: 'Success.' }
  for (const [status, reasons] of routeErrors(route, pipeline.errors, input.stepErrors)) {
    const key = String(status)
    if (responses[key]) continue
    responses[key] = errorResponse(error, pipeline.errors, `${STATUS_TEXT[status] ?? 'Error'}: ${reasons.join('; ')}.`)
  }
  responses.default = errorResponse(
    error,
    pipeline.errors,
    `${error.description} Any other error (500 internal error …).`,
  )
  const op: Record<string, unknown> = { operationId: route.id, tags: [pipeline.name], responses }
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
      schemas: Object.fromEntries(
        [...new Set(input.pipelines.map((p) => p.errors))].map((style) => [
          errorComponent(style),
          errorShape(style).schema,
        ]),
      ),
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        ...(input.cookieSteps ? { portalSession: PORTAL_SESSION } : {}),
      },
    },
  }
}
