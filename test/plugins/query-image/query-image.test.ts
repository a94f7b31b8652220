/**
 * query-image alone, with a fake kernel.call: the images route called under the project's
 * principal with the prompt, the model (default: the catalog's first image model), n and size;
 * the envelope with the images, usage_metric and cost; errors of the body and of the route.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import queryImage from '../../../plugins/query-image/index.js'
import { GatewayError } from '../../../kernel/contract/errors.js'
import { reply } from '../../../kernel/contract/reply.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { demoPrincipal, demoQueryAuth, fakeRouteCall } from '../../support/fake-route-call.js'
import type { QueryResponse } from '../../../protocols/query/response.js'

const test = suite('plugin query-image')

function setup(answer: Parameters<typeof fakeRouteCall>[0]) {
  const fake = fakeRouteCall(answer)
  const kernel = makeKernel({ call: fake.call })
  const run = (body: unknown, options: unknown = {}) =>
    runPlugin(queryImage, options, {
      kernel,
      body,
      principal: demoPrincipal,
      state: { queryAuth: demoQueryAuth },
      errors: 'query',
    })
  return { run, calls: fake.calls }
}

const images = reply.json({
  created: 1,
  data: [{ b64_json: 'iVBORw0KGgo=' }, { b64_json: 'iVBORw0KGgp=' }],
  output_format: 'png',
  size: '512x512',
})

test('the images route under the project’s principal; the images and their price in the envelope', async () => {
  const { run, calls } = setup(() => ({
    reply: images,
    model: 'sim-image',
    used: { inputTokens: 5, outputTokens: 528 },
  }))
  const r = await run({ query: 'two kites', n: 2, size: '512x512' })
  assert.is(r.error, undefined)
  assert.is(calls[0]!.routeId, 'images-generations')
  assert.equal(calls[0]!.body, {
    model: 'sim-image',
    prompt: 'two kites',
    n: 2,
    response_format: 'b64_json',
    size: '512x512',
  })
  assert.equal(calls[0]!.options?.principal, demoPrincipal)
  assert.is(calls[0]!.options?.parentId, r.ex.id)
  const body = (r.reply as { body: QueryResponse<Array<{ b64_json: string; mime_type: string }>> }).body
  assert.equal(body.response.response, [
    { b64_json: 'iVBORw0KGgo=', mime_type: 'image/png' },
    { b64_json: 'iVBORw0KGgp=', mime_type: 'image/png' },
  ])
  assert.is(body.file, 'image')
  assert.match(body.query_id, /^q-[0-9a-f-]{36}$/)
  assert.is(body.query_id, body.response.metadata.query_id)
  const m = body.response.metadata
  assert.equal([m.model_name, m.images, m.size], ['sim-image', 2, '512x512'])
  assert.is(m.usage_metric.output_token_count, 528)
  assert.is(m.usage_metric.input_token_details.user_query, 5)
  const cost = (5 * 5 + 528 * 40) / 1e6
  assert.ok(Math.abs(m.usage_metric.total_token_cost - cost) < 1e-12)
  assert.ok(Math.abs((m.cost as number) - cost) < 1e-12)
})

test('another route by option; the route’s errors pass through', async () => {
  const { run, calls } = setup(() => new GatewayError(400, "5 is greater than the maximum of 4 - 'n'"))
  const r = await run({ query: 'x', n: 5 }, { route: 'my-images' })
  assert.is(calls[0]!.routeId, 'my-images')
  assert.equal([r.error?.status, r.error?.message], [400, "5 is greater than the maximum of 4 - 'n'"])
  assert.match(r.rendered!.body, /"type":"invalid_request"/)
})

test('refusals before any call: a service token’s own parameters without override_params, provider, model', async () => {
  const { run, calls } = setup(() => ({ reply: images, model: 'sim-image', used: {} }))
  const own = { request_source: 'override_params' }
  const cases: Array<[unknown, number, RegExp]> = [
    [
      { query: 'x', model_name: 'sim-image' },
      400,
      /^a service token sends its own parameters only with request_source "override_params" \(sent: model_name\)$/,
    ],
    [{ query: 'x', request_source: 'mine' }, 400, /^request_source must be "override_params"$/],
    [{ query: 'x', model_provider: 'openai', ...own }, 400, /^model_provider openai does not serve this body type/],
    [
      { query: 'x', model_name: 'sim-orpheus', ...own },
      400,
      /^model_name sim-orpheus is not an image generation model$/,
    ],
    [{ query: 'x', model_name: 'nope', ...own }, 404, /^model_name nope is not in the catalog$/],
  ]
  for (const [body, status, message] of cases) {
    const r = await run(body)
    assert.is(r.error?.status, status)
    assert.match(r.error!.message, message)
  }
  assert.is(calls.length, 0)
})

test.run()
