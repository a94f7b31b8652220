/**
 * POST /query/v1/vision end to end: both token kinds, the three forms of `image`, the model
 * choice (the catalog's first vision model when the project's default cannot see), the
 * service-token rule for own parameters, usage_metric with the image as incontext_text, the
 * answer recorded under the project's key, and the 400/401 answers in the query error shape.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { TEST_DEV_TOKEN, TEST_SERVICE_TOKEN, type TestGateway } from '../support/gateway.js'
import { demoRecords, isQueryError, post, startQueryGateway } from './query-bodies-gateway.js'

const test = suite('e2e Query service: vision body type')
let gw: TestGateway

test.before(async () => {
  gw = await startQueryGateway()
})
test.after(() => gw.close())

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
const dataUrl = `data:image/png;base64,${PNG}`

test('developer token with a data URL: answered by the first vision model, recorded under the key', async () => {
  const since = Date.now()
  const { status, body: out } = await post(
    gw,
    'vision',
    { query: 'What is in this picture?', image: dataUrl, project_id: 'demo' },
    TEST_DEV_TOKEN,
  )
  assert.is(status, 200, JSON.stringify(out))
  assert.is(out.file, 'vision')
  assert.type(out.response!.response, 'string')
  assert.ok((out.response!.response as string).length > 0)
  const meta = out.response!.metadata
  assert.is(meta.model_name, 'sim-vision', "the project's default (sim-chat-instruct) cannot see images")
  assert.is(out.query_id, meta.query_id)
  const m = meta.usage_metric
  assert.is(
    Object.values(m.input_token_details).reduce((s, n) => s + n, 0),
    m.input_token_count,
    'the parts add up',
  )
  assert.ok(m.input_token_details.user_query > 0)
  assert.ok(
    m.input_token_details.incontext_text >= 200,
    `the image's tokens (the simulator counts 256): ${m.input_token_details.incontext_text}`,
  )
  assert.ok(m.output_token_count > 0)
  const records = (await demoRecords(gw, since)).filter((r) => r.route === 'query-chat')
  assert.is(records.length, 1)
  assert.equal(
    [records[0]!.key, records[0]!.model, records[0]!.prompt_tokens, records[0]!.completion_tokens],
    ['demo', 'sim-vision', m.input_token_count, m.output_token_count],
  )
  assert.ok(Math.abs(records[0]!.value - m.total_token_cost) < 1e-12, 'the cost is the recorded value')
})

test('service token with bare base64 and its content type; a public https URL', async () => {
  const bare = await post(
    gw,
    'vision',
    { query: 'Describe it.', image: PNG, image_content_type: 'image/png' },
    TEST_SERVICE_TOKEN,
  )
  assert.is(bare.status, 200, JSON.stringify(bare.body))
  const url = await post(
    gw,
    'vision',
    { query: 'Describe it.', image: 'https://example.org/cat.png' },
    TEST_SERVICE_TOKEN,
  )
  assert.is(url.status, 200, JSON.stringify(url.body))
})

test('own parameters with a service token need request_source override_params; then they apply', async () => {
  const refused = await post(
    gw,
    'vision',
    { query: 'Describe it.', image: dataUrl, model_name: 'sim-text-boon' },
    TEST_SERVICE_TOKEN,
  )
  assert.is(refused.status, 400)
  assert.match(refused.body.error!.message, /override_params.*model_name/)
  const since = Date.now()
  const ok = await post(
    gw,
    'vision',
    {
      query: 'Describe it.',
      image: dataUrl,
      request_source: 'override_params',
      model_name: 'sim-text-boon',
      model_params: { max_tokens: 5 },
    },
    TEST_SERVICE_TOKEN,
  )
  assert.is(ok.status, 200, JSON.stringify(ok.body))
  assert.is(ok.body.response!.metadata.model_name, 'sim-text-boon')
  assert.ok(ok.body.response!.metadata.usage_metric.output_token_count <= 5)
  const routes = (await demoRecords(gw, since)).map((r) => `${r.route}:${r.model}`).sort()
  assert.ok(routes.includes('query-chat:sim-text-boon'), routes.join(' '))
})

test('images the rule refuses, and bad bodies: 400 in the query error shape', async () => {
  for (const image of [
    'http://example.org/cat.png',
    'https://127.0.0.1/cat.png',
    'https://localhost/x.png',
    'data:text/plain;base64,aGk=',
  ]) {
    const r = await post(gw, 'vision', { query: 'q', image }, TEST_SERVICE_TOKEN)
    assert.is(r.status, 400, image)
    assert.ok(isQueryError(r.body, 400))
    assert.match(r.body.error!.message, /image must be a data URL/)
  }
  const noType = await post(gw, 'vision', { query: 'q', image: PNG }, TEST_SERVICE_TOKEN)
  assert.is(noType.status, 400)
  assert.match(noType.body.error!.message, /image_content_type is required/)
  const missing = await post(gw, 'vision', { query: 'q', project_id: 'demo' }, TEST_DEV_TOKEN)
  assert.is(missing.status, 400)
  assert.match(missing.body.error!.message, /image/)
  const temperature = await post(
    gw,
    'vision',
    { query: 'q', image: dataUrl, request_source: 'override_params', model_params: { temperature: 3 } },
    TEST_SERVICE_TOKEN,
  )
  assert.is(temperature.status, 400)
  assert.match(temperature.body.error!.message, /temperature/)
  const provider = await post(
    gw,
    'vision',
    { query: 'q', image: dataUrl, request_source: 'override_params', model_provider: 'openai' },
    TEST_SERVICE_TOKEN,
  )
  assert.is(provider.status, 400)
  assert.match(provider.body.error!.message, /model_provider openai/)
})

test('missing token: 401', async () => {
  const none = await post(gw, 'vision', { query: 'q', image: dataUrl }, undefined)
  assert.is(none.status, 401)
  assert.ok(isQueryError(none.body, 401))
})

test.run()
