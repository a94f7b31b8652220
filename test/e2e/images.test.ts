/**
 * POST /v1/images/generations end to end with the official openai SDK: the b64 decodes to a PNG
 * of the asked size, the same prompt gives the same image and another prompt another, the
 * request is in the usage records with the image tokens and an indicative value, and a bad size
 * or n is a 400 in OpenAI's error shape.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type OpenAI from 'openai'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { readPng } from '../support/png.js'

const test = suite('e2e image generation')
const ADMIN = 'sk-admin-images'
let gw: TestGateway

test.before(async () => {
  gw = await startTestGateway({ env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN } })
})
test.after(() => gw.close())

const generate = (prompt: string, extra: Partial<OpenAI.Images.ImageGenerateParams> = {}) =>
  gw.openai().images.generate({
    model: 'sim-image',
    prompt,
    response_format: 'b64_json',
    ...extra,
  } as OpenAI.Images.ImageGenerateParamsNonStreaming)

async function failure(p: Promise<unknown>): Promise<[number | undefined, string | undefined]> {
  try {
    await p
    return [200, undefined]
  } catch (err) {
    const e = err as InstanceType<typeof OpenAI.APIError>
    return [e.status, (e.error as { message?: string } | undefined)?.message]
  }
}

test('the b64 is a PNG of the asked size; same prompt same image, another prompt another', async () => {
  const a = await generate('a red fox in the snow', { size: '256x256' })
  assert.is(a.data!.length, 1)
  const png = readPng(Buffer.from(a.data![0]!.b64_json!, 'base64'))
  assert.equal([png.width, png.height], [256, 256])
  assert.equal(png.chunks, ['IHDR', 'IDAT', 'IEND'])
  const again = await generate('a red fox in the snow', { size: '256x256' })
  assert.is(again.data![0]!.b64_json, a.data![0]!.b64_json)
  const other = await generate('a blue whale at night', { size: '256x256' })
  assert.is.not(other.data![0]!.b64_json, a.data![0]!.b64_json)
  const two = await generate('two kites', { size: '512x512', n: 2 })
  assert.equal(
    two.data!.map((d) => readPng(Buffer.from(d.b64_json!, 'base64')).width),
    [512, 512],
  )
  assert.is(two.usage!.output_tokens, 2 * 264)
})

test('the request is in the usage records: route, model, image tokens, a value', async () => {
  const made = await gw
    .openai()
    .images.generate({ model: 'sim-image', prompt: 'a lighthouse', size: '1024x1024', response_format: 'b64_json' })
    .withResponse()
  const id = made.response.headers.get('x-gateway-request-id')
  const res = await fetch(`${gw.url}/admin/records?key=demo&limit=50`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  })
  const records = ((await res.json()) as { data: Array<Record<string, unknown>> }).data
  const record = records.find((r) => r.request_id === id)
  assert.ok(record, 'the request has a record')
  assert.is(record!.route, 'images-generations')
  assert.is(record!.model, 'sim-image')
  assert.is(record!.completion_tokens, 1056)
  assert.is(record!.prompt_tokens, made.data.usage!.input_tokens)
  // gpt-image-1's prices: $5 per million tokens in, $40 per million out.
  assert.ok(
    Math.abs((record!.value as number) - (made.data.usage!.input_tokens * 5 + 1056 * 40) / 1e6) < 1e-12,
    `value ${record!.value}`,
  )
})

test('a bad size or n is 400 in the OpenAI shape; url is refused by the server; a chat model is not an image model', async () => {
  const [status, message] = await failure(generate('x', { size: '300x300' as '256x256' }))
  assert.is(status, 400)
  assert.match(message!, /'300x300' is not one of/)
  assert.equal(await failure(generate('x', { n: 11 })), [400, 'invalid request: /n must be <= 10'])
  assert.equal(await failure(generate('x', { n: 5 })), [400, "5 is greater than the maximum of 4 - 'n'"])
  assert.equal(await failure(generate('x', { size: 'big' as '256x256' })), [
    400,
    'invalid request: /size must match pattern "^(auto|[1-9][0-9]{0,4}x[1-9][0-9]{0,4})$"',
  ])
  const [urlStatus, urlMessage] = await failure(generate('x', { response_format: 'url' }))
  assert.is(urlStatus, 400)
  assert.match(urlMessage!, /b64_json only/)
  const [chatStatus] = await failure(generate('x', { model: 'sim-chat-instruct' }))
  assert.is(chatStatus, 400)
})

test.run()
