/**
 * The web_search and image_generation boons end to end, with the official openai SDK against the
 * real gateway and its simulator: the model (sim-chat-tools) is offered the boons' tools; when it
 * calls web_search the gateway asks the provider (a SearXNG-compatible server on 127.0.0.1 that
 * counts its hits, or the local knowledge-base provider) and asks the model again, and the
 * client sees one answer, whole or streamed, with usage summed over the rounds; a client's own
 * tool still reaches the client; a generate_image call appends a PNG as a Markdown data URL.
 * `x-gateway-boons: off` offers no tool and sets no header. Every model call, search and image
 * is in the usage records under the caller's key, and no query or prompt text is.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type OpenAI from 'openai'
import path from 'node:path'
import { repoRoot } from '../../kernel/contract/paths.js'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { startFakeSearxng, type FakeSearxng } from '../support/searxng.js'
import { readPng } from '../support/png.js'
import { seedSampleCollection } from '../../domains/query/sample-collection.js'

const test = suite('e2e boons: web_search and image_generation')
const ADMIN = 'sk-admin-boons-tools'
let engine: FakeSearxng
let gw: TestGateway

test.before(async () => {
  engine = await startFakeSearxng(30_000)
  gw = await startTestGateway({
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
    server: {
      web_search: {
        provider: 'searxng',
        url: engine.url,
        timeout_ms: 2000,
        default_results: 5,
        max_results: 10,
        local: { project: 'demo', collection: 'sample' },
      },
    },
  })
})
test.after(async () => {
  await gw.close()
  await engine.close()
})

interface RecordView {
  request_id: string
  key: string
  route: string
  model: string
  prompt_tokens: number
  completion_tokens: number
  status: number
}

async function recordsSince(g: TestGateway, from: string): Promise<RecordView[]> {
  const res = await fetch(`${g.url}/admin/records?key=demo&from=${encodeURIComponent(from)}&limit=1000`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  })
  assert.is(res.status, 200)
  return ((await res.json()) as { data: RecordView[] }).data
}

const ask = (content: string) => ({ model: 'sim-chat-tools', messages: [{ role: 'user' as const, content }] })
/** A time after every record of the tests before (their last round may end within the same millisecond). */
const since = async () => {
  await new Promise((resolve) => setTimeout(resolve, 2))
  return new Date().toISOString()
}

test('web_search: the provider is asked with the query, the client sees one answer with usage summed; records under the key, no words', async () => {
  const from = await since()
  const hits = engine.queries.length
  const { data, response } = await gw
    .openai()
    .chat.completions.create(ask('Please search for the zebracorn lighthouse'))
    .withResponse()
  assert.is(engine.queries.length, hits + 1, 'the provider was called once')
  assert.is(engine.queries.at(-1), 'Please search for the zebracorn lighthouse', "the sim's query is the user's words")
  assert.is(response.headers.get('x-gateway-boons'), 'web_search')
  assert.is(data.choices.length, 1)
  const message = data.choices[0]!.message
  assert.is((message.tool_calls ?? []).length, 0, 'the boon call never reaches the client')
  assert.is(data.choices[0]!.finish_reason, 'stop')
  assert.match(message.content!, /^The tool returned: /, 'the answer came after the tool result')
  const records = await recordsSince(gw, from)
  const rounds = records.filter((r) => r.route === 'chat-internal')
  assert.is(rounds.length, 2, 'two model calls: the tool call, the answer')
  assert.ok(rounds.every((r) => r.key === 'demo' && r.model === 'sim-chat-tools' && r.status === 200))
  assert.is(
    data.usage!.prompt_tokens,
    rounds.reduce((n, r) => n + r.prompt_tokens, 0),
    'usage is summed over the rounds',
  )
  assert.is(
    data.usage!.completion_tokens,
    rounds.reduce((n, r) => n + r.completion_tokens, 0),
  )
  const searches = records.filter((r) => r.route === 'web-search-internal')
  assert.is(searches.length, 1, 'the search is recorded')
  assert.is(searches[0]!.model, 'web_search:searxng')
  assert.not.match(JSON.stringify(records), /zebracorn/i, 'no query text in the records')
})

test('web_search streamed: one answer streamed, no boon tool-call deltas, summed usage last', async () => {
  const hits = engine.queries.length
  const { data: stream, response } = await gw
    .openai()
    .chat.completions.create({
      ...ask('search the web for tide tables'),
      stream: true,
      stream_options: { include_usage: true },
    })
    .withResponse()
  assert.is(response.headers.get('x-gateway-boons'), 'web_search')
  let text = ''
  let finish: string | null | undefined
  let usage: OpenAI.CompletionUsage | undefined
  let toolDeltas = 0
  for await (const chunk of stream) {
    const c = chunk.choices[0]
    if (c?.delta?.content) text += c.delta.content
    if (c?.delta?.tool_calls) toolDeltas++
    if (c?.finish_reason) finish = c.finish_reason
    if (chunk.usage) usage = chunk.usage
  }
  assert.is(engine.queries.length, hits + 1)
  assert.is(toolDeltas, 0)
  assert.is(finish, 'stop')
  assert.match(text, /^The tool returned: /)
  assert.ok(usage && usage.prompt_tokens > 0 && usage.total_tokens === usage.prompt_tokens + usage.completion_tokens)
})

const weather: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
}

test("a client's own tool is still offered and its call reaches the client, whole and streamed; with it present, web_search still runs", async () => {
  const hits = engine.queries.length
  const own = await gw
    .openai()
    .chat.completions.create({ ...ask('use get_weather for Paris'), tools: [weather] })
    .withResponse()
  assert.is(own.data.choices[0]!.finish_reason, 'tool_calls')
  assert.equal(
    own.data.choices[0]!.message.tool_calls!.map((t) => (t as { function: { name: string } }).function.name),
    ['get_weather'],
  )
  assert.is(own.response.headers.get('x-gateway-boons'), null, 'no boon acted')
  assert.is(engine.queries.length, hits)

  const stream = await gw
    .openai()
    .chat.completions.create({ ...ask('use get_weather for Paris'), tools: [weather], stream: true })
  let name = ''
  let finish: string | null | undefined
  for await (const chunk of stream) {
    for (const t of chunk.choices[0]?.delta?.tool_calls ?? []) name += t.function?.name ?? ''
    if (chunk.choices[0]?.finish_reason) finish = chunk.choices[0].finish_reason
  }
  assert.is(name, 'get_weather')
  assert.is(finish, 'tool_calls')

  const searched = await gw
    .openai()
    .chat.completions.create({ ...ask('search for weather news'), tools: [weather] })
    .withResponse()
  assert.is(engine.queries.length, hits + 1)
  assert.is(searched.response.headers.get('x-gateway-boons'), 'web_search')
  assert.match(searched.data.choices[0]!.message.content!, /^The tool returned: /)
})

test('x-gateway-boons: off offers no tool, sets no header, asks no provider', async () => {
  const hits = engine.queries.length
  const from = await since()
  const { data, response } = await gw
    .openai()
    .chat.completions.create(ask('Please search for the zebracorn lighthouse'), {
      headers: { 'x-gateway-boons': 'off' },
    })
    .withResponse()
  assert.is(response.headers.get('x-gateway-boons'), null)
  assert.is(engine.queries.length, hits)
  assert.is((data.choices[0]!.message.tool_calls ?? []).length, 0)
  assert.not.match(data.choices[0]!.message.content!, /The tool returned/)
  const records = await recordsSince(gw, from)
  assert.equal(
    records.map((r) => r.route),
    ['chat'],
    'one request, through its own steps',
  )
})

test('image_generation: the PNG is appended as a Markdown data URL, whole and streamed; the image call is recorded', async () => {
  const from = await since()
  const { data, response } = await gw.openai().chat.completions.create(ask('draw a quokka on a bicycle')).withResponse()
  assert.is(response.headers.get('x-gateway-boons'), 'image_generation')
  const content = data.choices[0]!.message.content!
  const m = /\n\n!\[([^\]]*)\]\(data:image\/png;base64,([A-Za-z0-9+/=]+)\)$/.exec(content)
  assert.ok(m, 'the reply ends with a Markdown image')
  assert.is(m![1], 'draw a quokka on a bicycle')
  const png = readPng(Buffer.from(m![2]!, 'base64'))
  assert.equal([png.width, png.height], [1024, 1024], 'IHDR says 1024x1024')
  assert.equal(png.chunks, ['IHDR', 'IDAT', 'IEND'])

  const other = await gw.openai().chat.completions.create(ask('draw a red kite over hills'))
  assert.is.not(/base64,([^)]+)\)/.exec(other.choices[0]!.message.content!)![1], m![2], 'another prompt, another image')

  const records = await recordsSince(gw, from)
  const images = records.filter((r) => r.route === 'images-generations')
  assert.is(images.length, 2)
  assert.ok(images.every((r) => r.key === 'demo' && r.model === 'sim-image' && r.completion_tokens === 1056))
  assert.is(records.filter((r) => r.route === 'chat-internal').length, 4)
  assert.not.match(JSON.stringify(records), /quokka|kite/i, 'no prompt text in the records')

  const stream = await gw.openai().chat.completions.create({ ...ask('draw a quokka on a bicycle'), stream: true })
  const deltas: string[] = []
  let finishAfterImage = false
  for await (const chunk of stream) {
    const c = chunk.choices[0]
    if (c?.delta?.content) deltas.push(c.delta.content)
    if (c?.finish_reason) finishAfterImage = deltas.at(-1)?.startsWith('\n\n![') === true
  }
  assert.ok(finishAfterImage, 'the image is the last content delta, before the finish')
  assert.is(deltas.at(-1), `\n\n![${m![1]}](data:image/png;base64,${m![2]})`, 'the same image as the whole reply')
})

test('boon_details says which boons act and their helper', async () => {
  const entry = (await gw.openai().models.retrieve('sim-chat-tools')) as unknown as {
    boons: string[]
    boon_details: { name: string; active: boolean; helper_model?: string }[]
  }
  assert.equal(entry.boons, ['web_search', 'image_generation'])
  assert.equal(entry.boon_details, [
    { name: 'web_search', active: true },
    { name: 'image_generation', active: true, helper_model: 'sim-image' },
  ])
})

async function post(
  g: TestGateway,
  body: unknown,
  key: string | null = TEST_KEY,
): Promise<{
  status: number
  body: { error?: { message: string; code?: unknown }; results?: unknown[]; provider?: string; query?: string }
}> {
  const res = await fetch(`${g.url}/v1/web_search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as never }
}

test('POST /v1/web_search: results in the common shape, recorded; every error', async () => {
  const from = await since()
  const ok = await post(gw, { query: 'lighthouses', max_results: 1 })
  assert.is(ok.status, 200)
  assert.is(ok.body.provider, 'searxng')
  assert.is(ok.body.query, 'lighthouses')
  assert.equal(ok.body.results, [
    {
      title: 'Lighthouses of the world',
      url: 'https://example.org/lighthouses',
      content: 'Facts about lighthouses from a test engine.',
      score: 2.5,
    },
  ])
  assert.is(engine.queries.at(-1), 'lighthouses')

  assert.is((await post(gw, { query: 'x' }, null)).status, 401)
  assert.is((await post(gw, { query: 'x' }, 'sk-wrong')).status, 401)
  const missing = await post(gw, {})
  assert.is(missing.status, 400)
  assert.match(missing.body.error!.message, /query/)
  assert.is((await post(gw, { query: '   ' })).status, 400)
  assert.is((await post(gw, { query: 'x', search_depth: 'advanced' })).status, 400, 'unknown fields are refused')
  assert.is((await post(gw, { query: 'x', max_results: 0 })).status, 400)
  const over = await post(gw, { query: 'x', max_results: 11 })
  assert.is(over.status, 400)
  assert.match(over.body.error!.message, /max_results 11 is over this gateway's limit of 10/)
  assert.is((await post(gw, '{"query":')).status, 400)
  const failed = await post(gw, { query: 'fail' })
  assert.is(failed.status, 502)
  assert.match(failed.body.error!.message, /the web search provider answered 500/)
  const slow = await post(gw, { query: 'slow' })
  assert.is(slow.status, 504)
  assert.match(slow.body.error!.message, /did not answer within 2000 ms/)

  const records = (await recordsSince(gw, from)).filter((r) => r.route === 'web-search')
  assert.equal(
    records.map((r) => r.status).sort(),
    [200, 502, 504],
    'each search that reached the provider is recorded, with its status',
  )
  assert.ok(records.every((r) => r.key === 'demo' && r.model === 'web_search:searxng'))
})

test('an unreachable provider is a 502 on the endpoint; for the boon, the model answers without results', async () => {
  const dead = await startFakeSearxng()
  const url = dead.url
  await dead.close()
  const g = await startTestGateway({
    env: { SLUICE_DEMO_KEY: TEST_KEY },
    server: {
      web_search: {
        provider: 'searxng',
        url,
        timeout_ms: 2000,
        default_results: 5,
        max_results: 10,
        local: { project: 'demo', collection: 'sample' },
      },
    },
  })
  try {
    const r = await post(g, { query: 'anything' })
    assert.is(r.status, 502)
    assert.match(r.body.error!.message, /could not be reached/)
    const answer = await g.openai().chat.completions.create(ask('search for anything'))
    assert.match(answer.choices[0]!.message.content!, /^The tool returned: \{"error":"the search failed \(502\)/)
  } finally {
    await g.close()
  }
})

test('the local provider (the embedded default) searches a knowledge-base collection and says it is not the web', async () => {
  // The test gateway's config copy holds no sample folder: the repository's is ingested.
  const sample = {
    enabled: true,
    project: 'demo',
    collection: 'sample',
    folder: path.join(repoRoot, 'config', 'sample'),
  }
  const g = await startTestGateway({
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
    server: { query: { sample_collection: sample } as never },
  })
  try {
    const none = await post(g, { query: 'api key' })
    assert.is(none.status, 200, 'before the sample collection exists: no results, not an error')
    assert.equal(none.body.results, [])
    assert.ok(
      g.logs.some((l) => l.includes("the local provider's collection demo/sample does not exist")),
      'the operator is told in the log',
    )
    assert.is(await seedSampleCollection(g.generation()), 'ingested')
    const found = await post(g, { query: 'create an API key', max_results: 3 })
    assert.is(found.status, 200)
    assert.is(found.body.provider, 'local')
    const results = found.body.results as { url: string; title: string }[]
    assert.ok(results.length > 0 && results.every((r) => r.url.startsWith('kb://demo/sample/')))
    assert.ok(results.some((r) => r.title === 'api-keys.md'))

    const { data, response } = await g
      .openai()
      .chat.completions.create(ask('search how to create an API key'))
      .withResponse()
    assert.is(response.headers.get('x-gateway-boons'), 'web_search')
    assert.match(data.choices[0]!.message.content!, /^The tool returned: \{"source":"not the web/)
    const records = await recordsSince(g, new Date(0).toISOString())
    assert.ok(records.some((r) => r.route === 'web-search-internal' && r.model === 'web_search:local'))
  } finally {
    await g.close()
  }
})

test.run()
