/**
 * Real answers against the OpenAPI document: requests of every kind go through a test gateway
 * (the openai SDK for the OpenAI doors, fetch for the rest) and each response is checked against
 * what /openapi.json says of its route: its status must be listed (an error status explicitly,
 * not only under `default`), its content type must be one the status lists, and its body must
 * satisfy that content type's schema, checked with ajv in JSON Schema 2020-12 (OpenAPI 3.1's
 * dialect). A streamed answer is checked event by event against the `text/event-stream` schema.
 * Every operation of the document is answered at least once (the last test says which were not).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { toFile } from 'openai'
import { TEST_DEV_TOKEN, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { toneWav } from '../support/audio.js'
import { startAudioGateway } from './audio-gateway.js'

const test = suite('e2e OpenAPI: real responses conform to the document')
const ADMIN = 'sk-admin-openapi-e2e'
let gw: TestGateway

interface Media {
  schema?: object
}
interface Operation {
  responses: Record<string, { content?: Record<string, Media> }>
}
interface Doc {
  paths: Record<string, Record<string, Operation>>
  components: Record<string, unknown>
}
let doc: Doc

const ajv = new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true })
// The one format the schemas use, as kernel/contract/ajv.ts defines it.
ajv.addFormat('date-time', (value: string) => /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value)))
const compiled = new Map<object, ValidateFunction>()

/** A schema of the document with the document's components beside it, so that its `$ref`s resolve. */
function validatorOf(schema: object): ValidateFunction {
  let fn = compiled.get(schema)
  if (!fn) {
    fn = ajv.compile({ ...schema, components: doc.components })
    compiled.set(schema, fn)
  }
  return fn
}

/** Every `METHOD path status` checked, to show that the checks ran. */
const checked = new Set<string>()

/** Server-sent events as `{event?, data}`, `data` parsed as JSON unless it is a terminator such as `[DONE]`. */
function events(text: string): { event?: string; data: unknown }[] {
  const out: { event?: string; data: unknown }[] = []
  for (const block of text.split(/\n\n+/)) {
    const lines = block.split('\n').filter((l) => l !== '' && !l.startsWith(':'))
    if (lines.length === 0) continue
    const event = lines
      .find((l) => l.startsWith('event:'))
      ?.slice(6)
      .trim()
    const data = lines
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n')
    out.push({ ...(event ? { event } : {}), data: data.startsWith('{') ? JSON.parse(data) : data })
  }
  return out
}

function assertValid(schema: object, value: unknown, where: string): void {
  const validate = validatorOf(schema)
  assert.ok(validate(value), `${where}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)?.slice(0, 1500)}`)
}

/**
 * Checks a response against the document's operation `method path`: the status listed, the
 * content type listed for it, the body valid. Returns the body (JSON parsed, events, or text).
 */
async function conforms(res: Response, method: string, path: string): Promise<any> {
  const op = doc.paths[path]?.[method.toLowerCase()]
  assert.ok(op, `${method} ${path} is not in the document`)
  const where = `${method} ${path} ${res.status}`
  const listed = op.responses[String(res.status)]
  assert.ok(listed, `${where}: status ${res.status} is not listed (listed: ${Object.keys(op.responses).join(', ')})`)
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim()
  const media = Object.entries(listed.content ?? {}).find(([t]) => t.split(';')[0]!.trim() === type)?.[1]
  assert.ok(media?.schema, `${where}: content type ${type} is not listed`)
  checked.add(where)
  if (type === 'text/event-stream') {
    const list = events(await res.text())
    assert.ok(list.length > 0, `${where}: no events`)
    list.forEach((e, i) => assertValid(media.schema!, e, `${where} event ${i}`))
    return list
  }
  if (type === 'application/json') {
    const body: unknown = await res.json()
    assertValid(media.schema!, body, where)
    return body
  }
  const bytes = Buffer.from(await res.arrayBuffer())
  assert.ok(bytes.length > 0, `${where}: empty body`)
  assertValid(media.schema!, type.startsWith('text/') ? bytes.toString('utf8') : bytes.toString('base64'), where)
  return bytes
}

function send(
  path: string,
  init: { method?: string; key?: string | null; body?: unknown; headers?: Record<string, string> } = {},
) {
  const key = init.key === undefined ? TEST_KEY : init.key
  return fetch(`${gw.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
}
const admin = (path: string, init: { method?: string; body?: unknown } = {}) => send(path, { ...init, key: ADMIN })

test.before(async () => {
  gw = await startAudioGateway({ env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN } })
  const res = await fetch(`${gw.url}/openapi.json`)
  assert.is(res.status, 200)
  doc = (await res.json()) as Doc
})
test.after(async () => gw.close())

test('every HTTP route lists a success response with a schema', () => {
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) {
      // A redirect is the success of a route that only sends the client elsewhere (`/`).
      const success = Object.entries(op.responses).filter(([s]) => /^[23]\d\d$/.test(s))
      assert.ok(success.length > 0, `${method} ${path}: no success response`)
      for (const [status, r] of success)
        assert.ok(
          Object.values(r.content ?? {}).every((m) => m.schema !== undefined) && r.content,
          `${method} ${path} ${status}: no schema`,
        )
    }
})

test('the openai SDK: chat whole and streamed, models, embeddings, images, completions', async () => {
  const client = gw.openai()
  const messages = [{ role: 'user' as const, content: 'hello' }]
  const whole = await conforms(
    await client.chat.completions.create({ model: 'sim-chat-instruct', messages, max_tokens: 8 }).asResponse(),
    'POST',
    '/v1/chat/completions',
  )
  assert.is(whole.object, 'chat.completion')
  const streamed = await conforms(
    await client.chat.completions
      .create({
        model: 'sim-chat-instruct',
        messages,
        max_tokens: 8,
        stream: true,
        stream_options: { include_usage: true },
      })
      .asResponse(),
    'POST',
    '/v1/chat/completions',
  )
  assert.is(streamed.at(-1).data, '[DONE]')
  const list = await conforms(await client.models.list().asResponse(), 'GET', '/v1/models')
  assert.ok(list.data.length > 5)
  await conforms(await client.models.retrieve('sim-chat-instruct').asResponse(), 'GET', '/v1/models/{id}')
  const vectors = await conforms(
    await client.embeddings.create({ model: 'sim-embed', input: ['one', 'two'] }).asResponse(),
    'POST',
    '/v1/embeddings',
  )
  assert.is(vectors.data.length, 2)
  const floats = await conforms(
    await client.embeddings.create({ model: 'sim-embed', input: 'one', encoding_format: 'float' }).asResponse(),
    'POST',
    '/v1/embeddings',
  )
  assert.type(floats.data[0].embedding[0], 'number')
  const images = await conforms(
    await client.images
      .generate({ model: 'sim-image', prompt: 'a lighthouse', size: '256x256', response_format: 'b64_json' })
      .asResponse(),
    'POST',
    '/v1/images/generations',
  )
  assert.ok(images.data[0].b64_json)
  await conforms(
    await client.completions.create({ model: 'sim-chat-instruct', prompt: 'Once', max_tokens: 5 }).asResponse(),
    'POST',
    '/v1/completions',
  )
})

test('the Responses API: created whole and streamed, stored, its input items, deleted', async () => {
  const client = gw.openai()
  const made = await conforms(
    await client.responses.create({ model: 'sim-chat-instruct', input: 'hello', max_output_tokens: 16 }).asResponse(),
    'POST',
    '/v1/responses',
  )
  const streamed = await conforms(
    await client.responses
      .create({ model: 'sim-chat-instruct', input: 'hello', max_output_tokens: 16, stream: true, store: false })
      .asResponse(),
    'POST',
    '/v1/responses',
  )
  assert.is(streamed.at(-1).event, 'response.completed')
  await conforms(await send(`/v1/responses/${made.id}`), 'GET', '/v1/responses/{id}')
  await conforms(await send(`/v1/responses/${made.id}/input_items`), 'GET', '/v1/responses/{id}/input_items')
  await conforms(await send(`/v1/responses/${made.id}`, { method: 'DELETE' }), 'DELETE', '/v1/responses/{id}')
  await conforms(await send(`/v1/responses/${made.id}`), 'GET', '/v1/responses/{id}')
})

test('rerank, verdicts, web search and the Messages API', async () => {
  const client = gw.openai()
  const ranked = await conforms(
    await client
      .post('/rerank', {
        body: {
          model: 'sim-rerank',
          query: 'cats',
          documents: ['Stocks rose.', 'Cats sleep.'],
          return_documents: true,
        },
      })
      .asResponse(),
    'POST',
    '/v1/rerank',
  )
  assert.is(ranked.results.length, 2)
  const verdicts = await conforms(
    await client
      .post('/verdicts', {
        body: {
          model: 'sim-chat-instruct',
          state: 'Hello! Could you help me with my order?',
          questions: {
            polite: { type: 'boolean', instructions: 'Is the message polite?' },
            team: { type: 'choice', instructions: 'Who should answer?', criteria: { sales: null, support: 'orders' } },
            mood: { type: 'score', instructions: 'How upset?', criteria: ['calm', 'annoyed', 'angry'] },
          },
        },
      })
      .asResponse(),
    'POST',
    '/v1/verdicts',
  )
  assert.equal(Object.keys(verdicts.verdicts).sort(), ['mood', 'polite', 'team'])
  await conforms(
    await send('/v1/web_search', { body: { query: 'api keys', max_results: 2 } }),
    'POST',
    '/v1/web_search',
  )
  const message = { model: 'sim-chat-instruct', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] }
  const anthropic = { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' }
  const m = await conforms(
    await send('/v1/messages', { key: null, headers: anthropic, body: message }),
    'POST',
    '/v1/messages',
  )
  assert.is(m.type, 'message')
  const streamed = await conforms(
    await send('/v1/messages', { key: null, headers: anthropic, body: { ...message, stream: true } }),
    'POST',
    '/v1/messages',
  )
  assert.is(streamed.at(-1).event, 'message_stop')
  await conforms(
    await send('/v1/messages/count_tokens', {
      key: null,
      headers: anthropic,
      body: { model: 'sim-chat-instruct', messages: message.messages },
    }),
    'POST',
    '/v1/messages/count_tokens',
  )
})

test('audio: voices, speech as bytes and as events, a transcript as JSON and as text', async () => {
  const client = gw.openai()
  await conforms(await send('/v1/audio/voices?model=sim-orpheus'), 'GET', '/v1/audio/voices')
  const speech = { model: 'sim-orpheus', voice: 'tara', input: 'Hello there.' }
  await conforms(
    await send('/v1/audio/speech', { body: { ...speech, response_format: 'wav' } }),
    'POST',
    '/v1/audio/speech',
  )
  const sse = await conforms(
    await send('/v1/audio/speech', { body: { ...speech, response_format: 'pcm', stream_format: 'sse' } }),
    'POST',
    '/v1/audio/speech',
  )
  assert.is(sse.at(-1).data.type, 'speech.audio.done')
  const file = () => toFile(toneWav(2), 'tone.wav', { type: 'audio/wav' })
  await conforms(
    await client.audio.transcriptions.create({ model: 'sim-whisper', file: await file() }).asResponse(),
    'POST',
    '/v1/audio/transcriptions',
  )
  await conforms(
    await client.audio.transcriptions
      .create({ model: 'sim-whisper', file: await file(), response_format: 'vtt' })
      .asResponse(),
    'POST',
    '/v1/audio/transcriptions',
  )
  await conforms(
    await client.audio.translations
      .create({ model: 'sim-whisper', file: await file(), response_format: 'verbose_json' })
      .asResponse(),
    'POST',
    '/v1/audio/translations',
  )
})

test('the admin API: keys made, read and deleted; groups; usage and records; models; projects', async () => {
  const made = await conforms(await admin('/admin/keys', { body: { group: 'demo' } }), 'POST', '/admin/keys')
  const id = made.key.id as string
  assert.match(made.secret, /^sk-/)
  await conforms(await admin('/admin/keys'), 'GET', '/admin/keys')
  await conforms(await admin(`/admin/keys/${id}`), 'GET', '/admin/keys/{id}')
  await conforms(
    await admin(`/admin/keys/${id}`, { method: 'PATCH', body: { enabled: false } }),
    'PATCH',
    '/admin/keys/{id}',
  )
  const rotated = await conforms(
    await admin(`/admin/keys/${id}/rotate`, { method: 'POST' }),
    'POST',
    '/admin/keys/{id}/rotate',
  )
  // 403: the key is switched off.
  const off = await conforms(await send('/v1/models', { key: rotated.secret }), 'GET', '/v1/models')
  assert.is(off.error.message, 'api key disabled')
  await conforms(await admin(`/admin/keys/${id}`, { method: 'DELETE' }), 'DELETE', '/admin/keys/{id}')
  await conforms(await admin('/admin/groups'), 'GET', '/admin/groups')
  await conforms(
    await admin('/admin/groups/openapi', { method: 'PUT', body: { weight: 2 } }),
    'PUT',
    '/admin/groups/{id}',
  )
  await conforms(await admin('/admin/groups/openapi'), 'GET', '/admin/groups/{id}')
  await conforms(await admin('/admin/groups/openapi', { method: 'DELETE' }), 'DELETE', '/admin/groups/{id}')
  const usage = await conforms(await admin('/admin/usage?by=model'), 'GET', '/admin/usage')
  assert.ok(usage.data.length > 0, 'the requests above are counted')
  const records = await conforms(await admin('/admin/records?limit=50'), 'GET', '/admin/records')
  assert.ok(records.data.length > 0)
  await conforms(await admin('/admin/models'), 'GET', '/admin/models')
  await conforms(await admin('/admin/projects'), 'GET', '/admin/projects')
  await conforms(await admin('/admin/projects/demo'), 'GET', '/admin/projects/{id}')
  const token = await conforms(
    await admin('/admin/projects/demo/tokens', { body: { kind: 'service' } }),
    'POST',
    '/admin/projects/{id}/tokens',
  )
  await conforms(await admin('/admin/projects/demo/tokens'), 'GET', '/admin/projects/{id}/tokens')
  await conforms(
    await admin(`/admin/projects/demo/tokens/${token.token.id}`, { method: 'DELETE' }),
    'DELETE',
    '/admin/projects/{id}/tokens/{token}',
  )
  await conforms(
    await admin('/admin/projects/openapi', { method: 'PUT', body: { key: 'demo' } }),
    'PUT',
    '/admin/projects/{id}',
  )
  await conforms(await admin('/admin/projects/openapi', { method: 'DELETE' }), 'DELETE', '/admin/projects/{id}')
})

const KB = '/knowledge/v1/projects/demo/collections'

test('the knowledge API and the Query service: a collection, a document, a search, a query', async () => {
  await conforms(
    await admin(KB, { body: { name: 'openapi', embedding_model: 'sim-embed' } }),
    'POST',
    '/knowledge/v1/projects/{project}/collections',
  )
  await conforms(await admin(KB), 'GET', '/knowledge/v1/projects/{project}/collections')
  const docPath = '/knowledge/v1/projects/{project}/collections/{collection}/documents/{source_name}'
  await conforms(
    await admin(`${KB}/openapi/documents/cats.md`, {
      method: 'PUT',
      body: { text: '# Cats\n\nCats sleep sixteen hours a day.', tags: ['pets'] },
    }),
    'PUT',
    docPath,
  )
  await conforms(
    await admin(`${KB}/openapi/documents`),
    'GET',
    '/knowledge/v1/projects/{project}/collections/{collection}/documents',
  )
  const found = await conforms(
    await admin(`${KB}/openapi/search`, { body: { query: 'how long do cats sleep', top_k: 2 } }),
    'POST',
    '/knowledge/v1/projects/{project}/collections/{collection}/search',
  )
  assert.ok(found.data.length > 0)
  await conforms(
    await admin(`${KB}/openapi/search`, { body: { query: 'cats', retrieval_type: 'document' } }),
    'POST',
    '/knowledge/v1/projects/{project}/collections/{collection}/search',
  )
  const token = TEST_DEV_TOKEN
  const searched = await conforms(
    await send('/query/v1/search', {
      key: token,
      body: { query: 'cats', project_id: 'demo', search_params: { collection: 'openapi', top_k: 2 } },
    }),
    'POST',
    '/query/v1/search',
  )
  assert.is(searched.file, 'search')
  const answered = await conforms(
    await send('/query/v1/query', {
      key: token,
      body: {
        endpoint: 'query',
        project_id: 'demo',
        query: 'How long do cats sleep?',
        enable_search: true,
        search_params: { collection: 'openapi' },
      },
    }),
    'POST',
    '/query/v1/query',
  )
  assert.is(answered.file, 'query')
  await conforms(
    await send('/query/v1/rerank', {
      key: token,
      body: {
        query: 'cats',
        project_id: 'demo',
        documents: ['Stocks rose.', 'Cats sleep.'],
        reranker_model: 'sim-rerank',
        reranker_provider: 'cohere',
      },
    }),
    'POST',
    '/query/v1/rerank',
  )
  await conforms(
    await send('/query/v1/image', { key: token, body: { query: 'a lighthouse', project_id: 'demo', size: '256x256' } }),
    'POST',
    '/query/v1/image',
  )
  await conforms(
    await send('/query/v1/speech', {
      key: token,
      body: { query: 'Hello.', project_id: 'demo', output_audio_format: 'wav' },
    }),
    'POST',
    '/query/v1/speech',
  )
  await conforms(await admin(`${KB}/openapi/documents/cats.md`, { method: 'DELETE' }), 'DELETE', docPath)
  await conforms(
    await admin(`${KB}/openapi`, { method: 'DELETE' }),
    'DELETE',
    '/knowledge/v1/projects/{project}/collections/{collection}',
  )
})

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

function form(fields: Record<string, string>, file: { field: string; name: string; type: string; data: string }) {
  const f = new FormData()
  for (const [k, v] of Object.entries(fields)) f.append(k, v)
  f.append(file.field, new Blob([file.data], { type: file.type }), file.name)
  return f
}

test('more bodies: vision, audio, a chat upload, a multipart document upload', async () => {
  const token = TEST_DEV_TOKEN
  const seen = await conforms(
    await send('/query/v1/vision', {
      key: token,
      body: { query: 'What is in this picture?', image: `data:image/png;base64,${PNG}`, project_id: 'demo' },
    }),
    'POST',
    '/query/v1/vision',
  )
  assert.type(seen.response.response, 'string')
  await conforms(
    await send('/query/v1/audio', {
      key: token,
      body: { audio_file: toneWav(1).toString('base64'), task: 'transcribe', project_id: 'demo' },
    }),
    'POST',
    '/query/v1/audio',
  )
  const uploaded = await fetch(`${gw.url}/query/v1/chat_upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form({ project_id: 'demo' }, { field: 'docs', name: 'notes.txt', type: 'text/plain', data: 'Cats sleep.' }),
  })
  assert.is((await conforms(uploaded, 'POST', '/query/v1/chat_upload')).files[0].kind, 'doc')
  assert.is((await admin(KB, { body: { name: 'uploads', embedding_model: 'sim-embed' } })).status, 201)
  const documents = '/knowledge/v1/projects/{project}/collections/{collection}/documents'
  const file = { field: 'file', name: 'dogs.md', type: 'text/markdown', data: '# Dogs\n\nDogs nap.' }
  await conforms(
    await fetch(`${gw.url}${KB}/uploads/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
      body: form({ tags: '["pets"]' }, file),
    }),
    'POST',
    documents,
  )
  // 415: a file the knowledge base does not read.
  await conforms(
    await fetch(`${gw.url}${KB}/uploads/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
      body: form({}, { field: 'file', name: 'blob.xyz', type: 'application/x-unknown', data: 'x' }),
    }),
    'POST',
    documents,
  )
})

test("the portal's API: keys and groups changed with the session's token, records, projects, collections", async () => {
  const signIn = await send('/portal/api/session', { key: null, body: { admin_key: ADMIN } })
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!
  const { csrf_token } = (await signIn.json()) as { csrf_token: string }
  const portal = (path: string, init: { method?: string; body?: unknown } = {}) =>
    send(path, { ...init, key: null, headers: { cookie, 'x-csrf-token': csrf_token } })
  const made = await conforms(await portal('/portal/api/keys', { body: { group: 'demo' } }), 'POST', '/portal/api/keys')
  const id = made.key.id as string
  const keyPath = '/portal/api/keys/{id}'
  await conforms(
    await portal(`/portal/api/keys/${id}`, { method: 'PATCH', body: { enabled: false } }),
    'PATCH',
    keyPath,
  )
  await conforms(await portal(`/portal/api/keys/${id}/rotate`, { method: 'POST' }), 'POST', `${keyPath}/rotate`)
  await conforms(await portal(`/portal/api/keys/${id}`, { method: 'DELETE' }), 'DELETE', keyPath)
  await conforms(await portal('/portal/api/groups'), 'GET', '/portal/api/groups')
  await conforms(
    await portal('/portal/api/groups/portal', { method: 'PUT', body: {} }),
    'PUT',
    '/portal/api/groups/{id}',
  )
  await conforms(await portal('/portal/api/records?limit=5'), 'GET', '/portal/api/records')
  await conforms(await portal('/portal/api/projects'), 'GET', '/portal/api/projects')
  const collections = '/portal/api/projects/{project}/collections'
  await conforms(await portal('/portal/api/projects/demo/collections'), 'GET', collections)
  await conforms(
    await portal('/portal/api/projects/demo/collections', { body: { name: 'portal', embedding_model: 'sim-embed' } }),
    'POST',
    collections,
  )
  await conforms(
    await portal('/portal/api/projects/demo/collections/portal/documents'),
    'GET',
    `${collections}/{collection}/documents`,
  )
  const upload = await fetch(`${gw.url}/portal/api/projects/demo/collections/portal/documents`, {
    method: 'POST',
    headers: { cookie, 'x-csrf-token': csrf_token },
    body: form({}, { field: 'file', name: 'cats.txt', type: 'text/plain', data: 'Cats sleep.' }),
  })
  await conforms(upload, 'POST', `${collections}/{collection}/documents`)
  // 403: a change without the session's CSRF token.
  await conforms(
    await send('/portal/api/keys', { key: null, headers: { cookie }, body: { group: 'demo' } }),
    'POST',
    '/portal/api/keys',
  )
  const page = await send('/portal/', { key: null })
  const html = await conforms(page, 'GET', '/portal/')
  const asset = /\/portal\/assets\/([^"']+)/.exec(html.toString('utf8'))?.[1]
  assert.ok(asset, 'the page names its assets')
  await conforms(await send(`/portal/assets/${asset}`, { key: null }), 'GET', '/portal/assets/{file}')
  await conforms(await send('/portal/assets/nope.js', { key: null }), 'GET', '/portal/assets/{file}')
})

test('operations and the portal: probes, metrics, the documents, a portal session', async () => {
  await conforms(await send('/healthz', { key: null }), 'GET', '/healthz')
  await conforms(await send('/readyz', { key: null }), 'GET', '/readyz')
  await conforms(await send('/metrics', { key: null }), 'GET', '/metrics')
  await conforms(await send('/openapi.json', { key: null }), 'GET', '/openapi.json')
  await conforms(await send('/openapi/gateway.json', { key: null }), 'GET', '/openapi/{file}')
  await conforms(await send('/openapi/nope.json', { key: null }), 'GET', '/openapi/{file}')
  await conforms(await send('/openapi', { key: null }), 'GET', '/openapi')
  const signIn = await send('/portal/api/session', { key: null, body: { admin_key: ADMIN } })
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!
  const session = await conforms(signIn, 'POST', '/portal/api/session')
  const portal = { key: null, headers: { cookie } }
  await conforms(await send('/portal/api/session', portal), 'GET', '/portal/api/session')
  await conforms(await send('/portal/api/keys', portal), 'GET', '/portal/api/keys')
  await conforms(await send('/portal/api/usage', portal), 'GET', '/portal/api/usage')
  await conforms(await send('/portal/api/models', portal), 'GET', '/portal/api/models')
  await conforms(await send('/portal', { key: null }), 'GET', '/portal')
  const root = await fetch(`${gw.url}/`, { redirect: 'manual' })
  assert.is(root.headers.get('location'), '/portal/')
  await conforms(root, 'GET', '/')
  await conforms(
    await send('/portal/api/session', {
      ...portal,
      method: 'DELETE',
      headers: { cookie, 'x-csrf-token': session.csrf_token },
    }),
    'DELETE',
    '/portal/api/session',
  )
  await conforms(await send('/portal/api/session', portal), 'GET', '/portal/api/session')
})

test("errors: each listed for its route, each in its pipeline's error shape", async () => {
  const chat = { model: 'sim-chat-instruct', messages: [{ role: 'user', content: 'hi' }] }
  // 401: no key, a wrong key; each door in its own shape.
  assert.is(
    (await conforms(await send('/v1/chat/completions', { key: null, body: chat }), 'POST', '/v1/chat/completions'))
      .error.message,
    'missing bearer token',
  )
  await conforms(await send('/v1/models', { key: 'sk-wrong' }), 'GET', '/v1/models')
  const m401 = await conforms(
    await send('/v1/messages', { key: null, body: { ...chat, max_tokens: 5 } }),
    'POST',
    '/v1/messages',
  )
  assert.is(m401.type, 'error')
  const q401 = await conforms(
    await send('/query/v1/query', { key: null, body: { query: 'x' } }),
    'POST',
    '/query/v1/query',
  )
  assert.is(q401.error.status, 401)
  await conforms(await send('/admin/keys', { key: TEST_KEY }), 'GET', '/admin/keys')
  await conforms(await send('/portal/api/keys', { key: null }), 'GET', '/portal/api/keys')
  // 400: a body that breaks the route's schema, a missing model, bad JSON.
  await conforms(
    await send('/v1/chat/completions', { body: { ...chat, messages: 'hi' } }),
    'POST',
    '/v1/chat/completions',
  )
  await conforms(
    await send('/v1/chat/completions', { body: { messages: chat.messages } }),
    'POST',
    '/v1/chat/completions',
  )
  await conforms(
    await fetch(`${gw.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: '{"model":',
    }),
    'POST',
    '/v1/embeddings',
  )
  await conforms(
    await send('/v1/rerank', { body: { model: 'sim-chat-instruct', query: 'q', documents: ['d'] } }),
    'POST',
    '/v1/rerank',
  )
  await conforms(await send('/v1/audio/voices'), 'GET', '/v1/audio/voices')
  const q400 = await conforms(
    await send('/query/v1/query', { key: TEST_DEV_TOKEN, body: { endpoint: 'query', query: 'x' } }),
    'POST',
    '/query/v1/query',
  )
  assert.is(q400.error.status, 400)
  await conforms(await admin('/admin/usage?by=colour'), 'GET', '/admin/usage')
  // 404: an unknown model, key, group, project, collection; 410 a retired model.
  await conforms(
    await send('/v1/chat/completions', { body: { ...chat, model: 'nope' } }),
    'POST',
    '/v1/chat/completions',
  )
  await conforms(await send('/v1/models/nope'), 'GET', '/v1/models/{id}')
  await conforms(await send('/v1/embeddings', { body: { model: 'nope', input: 'x' } }), 'POST', '/v1/embeddings')
  await conforms(
    await send('/v1/chat/completions', { body: { ...chat, model: 'sim-retired-chat' } }),
    'POST',
    '/v1/chat/completions',
  )
  await conforms(await send('/v1/responses/resp_nope'), 'GET', '/v1/responses/{id}')
  await conforms(await admin('/admin/keys/nope'), 'GET', '/admin/keys/{id}')
  await conforms(await admin('/admin/groups/nope'), 'GET', '/admin/groups/{id}')
  await conforms(await admin('/admin/projects/nope'), 'GET', '/admin/projects/{id}')
  await conforms(
    await admin(`${KB}/nope/documents`),
    'GET',
    '/knowledge/v1/projects/{project}/collections/{collection}/documents',
  )
  // 409: a key that exists; 413: a body over the route's limit.
  await conforms(await admin('/admin/keys', { body: { id: 'demo', group: 'demo' } }), 'POST', '/admin/keys')
  await conforms(
    await send('/v1/rerank', { body: { model: 'sim-rerank', query: 'q', documents: ['x'.repeat(5 * 1024 * 1024)] } }),
    'POST',
    '/v1/rerank',
  )
  // SOAP: the WSDL, and a fault.
  await conforms(await send('/catalog?wsdl', { key: null }), 'GET', '/catalog')
  await conforms(
    await fetch(`${gw.url}/catalog`, { method: 'POST', headers: { 'content-type': 'text/xml' }, body: '<nope/>' }),
    'POST',
    '/catalog',
  )
})

test('the checks ran: every operation of the document answered, with statuses of every class', () => {
  const statuses = new Set([...checked].map((c) => c.split(' ').at(-1)))
  for (const s of ['200', '201', '400', '401', '403', '404', '409', '410', '413', '415', '500'])
    assert.ok(statuses.has(s), `no ${s} was checked`)
  const operations = new Set([...checked].map((c) => c.split(' ').slice(0, 2).join(' ')))
  const all = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
  )
  assert.equal(
    all.filter((o) => !operations.has(o)),
    [],
    'operations of the document no request checked',
  )
  assert.ok(all.length > 80, `${all.length} operations`)
})

test.run()
