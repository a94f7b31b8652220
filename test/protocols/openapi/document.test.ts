/**
 * The OpenAPI generator alone (protocols/openapi/document.ts), on pipelines written here: a
 * route's success responses come from its `response:`, its error statuses from its body and
 * its steps (in the pipeline's error shape, as a component), a SOAP pipeline's errors fold into
 * 500, and a route without `response:` still has a 200.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { buildOpenApi, routeErrors, type OpenApiPipeline } from '../../../protocols/openapi/document.js'

const test = suite('protocols openapi: responses and error statuses')

const errors: Record<string, Record<number, string>> = {
  gate: { 401: 'no key', 403: 'key off' },
  store: { 409: 'exists' },
  'store:read': { 404: 'missing' },
}
const stepErrors = (step: string) => errors[step] ?? errors[step.split(':')[0]!] ?? {}

const responseSchemas = {
  made: { '201': { description: 'Made.', content: { 'application/json': { type: 'object', required: ['id'] } } } },
  thing: { '200': { description: 'A thing.', content: { 'application/json': { $id: 'x:thing', type: 'object' } } } },
}

const pipelines: OpenApiPipeline[] = [
  {
    name: 'api',
    prefix: '/api',
    errors: 'openai',
    routes: [
      { id: 'make', http: 'POST /things', body: 'json', response: 'made', steps: ['gate', 'store'] },
      { id: 'read', http: 'GET /things/:id', response: 'thing', steps: ['gate', 'store:read'] },
      { id: 'plain', http: 'GET /plain', steps: ['unknown-plugin'] },
    ],
  },
  {
    name: 'soap',
    prefix: '',
    errors: 'soap',
    routes: [{ id: 'call', http: 'POST /soap', body: 'raw', steps: ['gate'] }],
  },
]

const doc = buildOpenApi({
  title: 't',
  version: '1',
  pipelines,
  bodySchemas: {},
  responseSchemas,
  stepErrors,
  authSteps: new Set(['gate']),
})
type Responses = Record<string, { description: string; content?: Record<string, { schema: object }> }>
const responsesOf = (path: string, method: string) => (doc.paths[path]![method] as { responses: Responses }).responses

test('success responses come from response:, without $id; a route without one has a bare 200', () => {
  const made = responsesOf('/api/things', 'post')
  assert.equal(made['201'], {
    description: 'Made.',
    content: { 'application/json': { schema: { type: 'object', required: ['id'] } } },
  })
  assert.is(made['200'], undefined)
  assert.equal(responsesOf('/api/things/{id}', 'get')['200']!.content!['application/json']!.schema, { type: 'object' })
  assert.equal(Object.keys(responsesOf('/api/plain', 'get')), ['200', 'default'])
})

test("error statuses: the body's and each step's (an action's entry over the plugin's), in the pipeline's shape", () => {
  const made = responsesOf('/api/things', 'post')
  assert.equal(Object.keys(made), ['201', '400', '401', '403', '409', '413', 'default'])
  assert.match(made['409']!.description, 'Conflict: exists')
  assert.match(made['400']!.description, 'not valid JSON')
  assert.equal(made['401']!.content, { 'application/json': { schema: { $ref: '#/components/schemas/OpenAIError' } } })
  assert.equal(Object.keys(responsesOf('/api/things/{id}', 'get')), ['200', '401', '403', '404', 'default'])
  const components = (doc.components as { schemas: Record<string, unknown> }).schemas
  assert.equal(Object.keys(components).sort(), ['OpenAIError', 'SoapFault'])
})

test('a SOAP pipeline answers every error as a 500 fault: its statuses fold into 500', () => {
  const folded = routeErrors(pipelines[1]!.routes[0]!, 'soap', stepErrors)
  assert.equal([...folded.keys()], [500])
  assert.equal(folded.get(500), ['request body too large', 'no key', 'key off'])
  const call = responsesOf('/soap', 'post')
  assert.equal(Object.keys(call), ['200', '500', 'default'])
  assert.equal(call['500']!.content, { 'text/xml': { schema: { $ref: '#/components/schemas/SoapFault' } } })
})

test.run()
