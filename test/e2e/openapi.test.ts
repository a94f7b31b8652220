/**
 * The OpenAPI documents of the default deployment: /openapi.json and each /openapi/<pipeline>.json
 * are valid OpenAPI 3.1 (checked by @seriousme/openapi-schema-validator, which validates
 * against the official 3.1 schema), and every HTTP route the gateway loaded appears in them
 * with its method and path; the reference page lists the routes.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Validator } from '@seriousme/openapi-schema-validator'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { PipelineError } from '../../kernel/run/loader.js'
import { defaultPipelinesDir } from '../../kernel/contract/paths.js'
import fs from 'node:fs'
import path from 'node:path'

const test = suite('e2e OpenAPI documents')
let gateway: TestGateway | undefined

interface Doc {
  openapi: string
  info: { description: string }
  tags: { name: string }[]
  paths: Record<
    string,
    Record<
      string,
      {
        security?: unknown[]
        requestBody?: unknown
        responses: Record<
          string,
          { description: string; content?: Record<string, { schema: Record<string, unknown> }> }
        >
      }
    >
  >
  components: { schemas: Record<string, unknown> }
}

test.before(async () => {
  gateway = await startTestGateway()
})
test.after(async () => {
  await gateway?.close()
})

async function getDoc(path: string): Promise<Doc> {
  const res = await fetch(`${gateway!.url}${path}`)
  assert.is(res.status, 200, path)
  return (await res.json()) as Doc
}

async function assertValid(doc: Doc, name: string): Promise<void> {
  const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0])
  assert.ok(result.valid, `${name}: ${JSON.stringify(result.errors, null, 1)?.slice(0, 2000)}`)
}

/** The loaded HTTP routes as `method path`, in OpenAPI's path syntax (`:id` and `*id` → `{id}`). */
function loadedRoutes(): string[] {
  const out: string[] = []
  for (const route of gateway!.generation().routes.values()) {
    if (!route.method || route.path === undefined || route.internal) continue
    out.push(`${route.method.toLowerCase()} ${route.path.replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')}`)
  }
  return out
}

test('the merged document is valid OpenAPI 3.1 and holds every loaded HTTP route', async () => {
  const doc = await getDoc('/openapi.json')
  assert.is(doc.openapi, '3.1.0')
  await assertValid(doc, '/openapi.json')
  const routes = loadedRoutes()
  assert.ok(routes.length > 20, `${routes.length} routes`)
  for (const r of routes) {
    const [method, path] = r.split(' ') as [string, string]
    assert.ok(doc.paths[path]?.[method], `${r} is missing`)
  }
  assert.match(doc.info.description, '/catalog?wsdl')
  // Bearer where the route authenticates, a request body from its schema, the pipeline's error shape.
  const chat = doc.paths['/v1/chat/completions']!.post!
  assert.equal(chat.security, [{ bearer: [] }])
  assert.ok(chat.requestBody)
  assert.ok(chat.responses.default)
  assert.is(doc.paths['/healthz']!.get!.security, undefined)
  // The portal's API: its session cookie, except the sign-in itself (the admin key in the body).
  assert.equal(doc.paths['/portal/api/keys']!.get!.security, [{ portalSession: [] }])
  assert.equal(doc.paths['/portal/api/session']!.delete!.security, [{ portalSession: [] }])
  assert.is(doc.paths['/portal/api/session']!.post!.security, undefined)
  assert.is(doc.paths['/portal']!.get!.security, undefined)
})

test("responses: success schemas from the route's response:, error statuses from its steps, in its error shape", async () => {
  const doc = await getDoc('/openapi.json')
  const chat = doc.paths['/v1/chat/completions']!.post!.responses
  assert.equal(Object.keys(chat['200']!.content!), ['application/json', 'text/event-stream'])
  assert.equal(chat['200']!.content!['application/json']!.schema.required, [
    'id',
    'object',
    'created',
    'model',
    'choices',
  ])
  // auth, body, model, budget, fair queue, backend: each step's statuses, and no other.
  assert.equal(
    Object.keys(chat).filter((s) => s !== '200'),
    ['400', '401', '403', '404', '410', '413', '429', '502', '503', '504', 'default'],
  )
  assert.match(chat['401']!.description, 'missing bearer token')
  assert.match(chat['429']!.description, 'token budget exceeded')
  assert.equal(chat['404']!.content, { 'application/json': { schema: { $ref: '#/components/schemas/OpenAIError' } } })
  // Per pipeline style: Anthropic's, the Query service's; SOAP faults fold into 500.
  assert.equal(doc.paths['/v1/messages']!.post!.responses['401']!.content, {
    'application/json': { schema: { $ref: '#/components/schemas/AnthropicError' } },
  })
  assert.equal(doc.paths['/query/v1/query']!.post!.responses['401']!.content, {
    'application/json': { schema: { $ref: '#/components/schemas/QueryError' } },
  })
  assert.equal(Object.keys(doc.paths['/catalog']!.post!.responses), ['200', '500', 'default'])
  assert.ok(doc.components.schemas.OpenAIError && doc.components.schemas.SoapFault)
  // Statuses follow the steps and their actions: a key is created with 201 and may conflict; a
  // list does neither; readiness answers 503 with its own body; the liveness probe has no error.
  const keys = doc.paths['/admin/keys']!
  assert.equal(Object.keys(keys.post!.responses), ['201', '400', '401', '403', '409', '413', '503', 'default'])
  assert.equal(Object.keys(keys.get!.responses), ['200', '401', '403', 'default'])
  assert.ok(doc.paths['/readyz']!.get!.responses['503']!.content!['application/json']!.schema.properties)
  assert.equal(Object.keys(doc.paths['/healthz']!.get!.responses), ['200', 'default'])
  assert.ok(doc.paths['/v1/audio/speech']!.post!.responses['200']!.content!['audio/mpeg'])
})

test('a route whose response: names no known schema stops the boot, naming the place', async () => {
  const gatewayYaml = fs.readFileSync(path.join(defaultPipelinesDir, 'gateway.yaml'), 'utf8')
  assert.match(gatewayYaml, 'response: chat-completion\n')
  let error: unknown
  try {
    const gw = await startTestGateway({
      files: {
        'pipelines/gateway.yaml': gatewayYaml.replace('response: chat-completion\n', 'response: chat-complete\n'),
      },
    })
    await gw.close()
  } catch (err) {
    error = err
  }
  assert.ok(error instanceof PipelineError, String(error))
  assert.is(error.code, 'PIPELINE_INVALID')
  assert.match(
    error.message,
    /gateway\.yaml: \/routes\/\d+\/response: must be equal to one of the allowed values \(model-list, /,
  )
})

test('each HTTP pipeline has its own valid document; an unknown one is 404', async () => {
  const merged = await getDoc('/openapi.json')
  for (const { name } of merged.tags) {
    const doc = await getDoc(`/openapi/${name}.json`)
    await assertValid(doc, name)
    assert.ok(Object.keys(doc.paths).length > 0, name)
  }
  assert.ok(merged.tags.some((t) => t.name === 'gateway'))
  const missing = await fetch(`${gateway!.url}/openapi/nope.json`)
  assert.is(missing.status, 404)
})

test('the reference page is self-contained HTML listing the routes', async () => {
  const res = await fetch(`${gateway!.url}/openapi`)
  assert.is(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', 'text/html')
  const html = await res.text()
  // Nothing loaded from elsewhere (schema descriptions may mention URLs as text).
  assert.not.match(html, /<script|<link|src=|href="https?:/)
  assert.match(html, '/v1/chat/completions')
  assert.match(html, '/readyz')
  // Each route's responses: success schemas to unfold, error statuses with their reasons.
  assert.match(html, '<summary>200 text/event-stream</summary>')
  assert.match(html, /<abbr title="Too many requests: token budget exceeded[^"]*">429<\/abbr>/)
  assert.match(html, '<td>portalSession</td>')
})

test.run()
