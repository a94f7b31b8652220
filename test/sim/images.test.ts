/**
 * The simulated image generator: POST /v1/images/generations answers OpenAI's shape with real
 * PNGs (valid chunks and CRCs, the asked size) whose pixels follow the prompt; gpt-image-1's
 * usage; OpenAI-style 400s for what it does not serve; the steps paid at the inter-token latency.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { RunningSimulator } from '../../sim/index.js'
import { crc32 } from '../../sim/png.js'
import { imageTokens } from '../../sim/images.js'
import { metricsText, metricValue, postError, postJson, startTestSimulator, testModels } from './helpers.js'
import { readPng } from '../support/png.js'

const test = suite<{ sim: RunningSimulator }>('sim: image generation')
test.before(async (ctx) => {
  ctx.sim = await startTestSimulator({
    models: [
      ...testModels,
      { name: 'sim-image', kind: 'image', image: { sizes: ['256x256', '512x512'], max_images: 4, steps: 20 } },
    ],
  })
})
test.after(async (ctx) => ctx.sim.close())

interface Generated {
  created: number
  data: Array<{ b64_json: string }>
  size: string
  output_format: string
  usage: {
    input_tokens: number
    output_tokens: number
    total_tokens: number
    input_tokens_details: { text_tokens: number; image_tokens: number }
  }
}

const generate = (sim: RunningSimulator, body: Record<string, unknown>) =>
  postJson<Generated>(sim, '/v1/images/generations', { model: 'sim-image', ...body })

test('crc32: the standard check value', () => {
  assert.is(crc32(Buffer.from('123456789')), 0xcbf43926)
})

test('a PNG of the asked size, with usage in gpt-image-1 shape', async ({ sim }) => {
  const { status, body } = await generate(sim, { prompt: 'a red fox in snow', size: '512x512', n: 2 })
  assert.is(status, 200)
  assert.is(body.data.length, 2)
  assert.is(body.size, '512x512')
  assert.is(body.output_format, 'png')
  for (const item of body.data) {
    const png = readPng(Buffer.from(item.b64_json, 'base64'))
    assert.equal([png.width, png.height, png.colourType], [512, 512, 2])
    assert.equal(png.chunks, ['IHDR', 'IDAT', 'IEND'])
  }
  assert.is.not(body.data[0]!.b64_json, body.data[1]!.b64_json, 'the images of one request differ')
  assert.is(body.usage.output_tokens, 2 * imageTokens(512, 512))
  assert.is(imageTokens(1024, 1024), 1056)
  assert.ok(body.usage.input_tokens > 0)
  assert.is(body.usage.total_tokens, body.usage.input_tokens + body.usage.output_tokens)
  assert.is(body.usage.input_tokens_details.text_tokens, body.usage.input_tokens)
})

test('the same prompt gives the same image; another prompt another; no size = the first listed', async ({ sim }) => {
  const a = await generate(sim, { prompt: 'a lighthouse at dusk' })
  const b = await generate(sim, { prompt: 'a lighthouse at dusk', size: 'auto' })
  const c = await generate(sim, { prompt: 'a bowl of lemons' })
  assert.is(a.body.data[0]!.b64_json, b.body.data[0]!.b64_json)
  assert.is.not(a.body.data[0]!.b64_json, c.body.data[0]!.b64_json)
  const pa = readPng(Buffer.from(a.body.data[0]!.b64_json, 'base64'))
  const pc = readPng(Buffer.from(c.body.data[0]!.b64_json, 'base64'))
  assert.equal([pa.width, pa.height], [256, 256])
  let differing = 0
  for (let i = 0; i < pa.rgb.length; i += 3) if (Math.abs(pa.rgb[i]! - pc.rgb[i]!) > 16) differing++
  assert.ok(differing > (256 * 256) / 4, `pixels that differ: ${differing}`)
})

test('OpenAI-style 400s: url responses, sizes not served, n out of range, empty prompt, a model of another kind', async ({
  sim,
}) => {
  const url = await postError(sim, '/v1/images/generations', {
    model: 'sim-image',
    prompt: 'x',
    response_format: 'url',
  })
  assert.is(url.status, 400)
  assert.is(url.body.error.param, 'response_format')
  assert.match(url.body.error.message, /b64_json only/)
  const size = await postError(sim, '/v1/images/generations', { model: 'sim-image', prompt: 'x', size: '1024x1024' })
  assert.equal(
    [size.status, size.body.error.message],
    [400, "'1024x1024' is not one of ['auto', '256x256', '512x512'] - 'size'"],
  )
  const many = await postError(sim, '/v1/images/generations', { model: 'sim-image', prompt: 'x', n: 5 })
  assert.equal(
    [many.status, many.body.error.message, many.body.error.param],
    [400, "5 is greater than the maximum of 4 - 'n'", 'n'],
  )
  const none = await postError(sim, '/v1/images/generations', { model: 'sim-image', prompt: 'x', n: 0 })
  assert.is(none.status, 400)
  const empty = await postError(sim, '/v1/images/generations', { model: 'sim-image', prompt: ' ' })
  assert.equal([empty.status, empty.body.error.param], [400, 'prompt'])
  const chat = await postError(sim, '/v1/images/generations', { model: 'sim-instruct-8b', prompt: 'x' })
  assert.equal([chat.status, chat.body.error.message], [400, 'The model does not support Images API'])
})

test('time: after the time to first token, the denoising steps are paid at the inter-token latency', async ({
  sim,
}) => {
  // What the simulator waits is what it reports to /metrics: counted here, never timed.
  const itl = async () => {
    const text = await metricsText(sim)
    return {
      gaps: metricValue(text, 'vllm:inter_token_latency_seconds_count', 'sim-image') ?? 0,
      seconds: metricValue(text, 'vllm:inter_token_latency_seconds_sum', 'sim-image') ?? 0,
    }
  }
  const before = await itl()
  const { status } = await postJson(
    sim,
    '/v1/images/generations',
    { model: 'sim-image', prompt: 'slow', n: 2 },
    { 'x-sim-ttft-ms': '20', 'x-sim-itl-ms': '2' },
  )
  assert.is(status, 200)
  const after = await itl()
  // 2 images × 20 steps: 39 gaps of 2 ms each (the test simulator has no jitter).
  assert.is(after.gaps - before.gaps, 39)
  assert.ok(Math.abs(after.seconds - before.seconds - 39 * 0.002) < 1e-9, `${after.seconds - before.seconds} s of gaps`)
})

test.run()
