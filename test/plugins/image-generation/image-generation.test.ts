/**
 * The image-generation plugin against a fake images server: what it sends where, the reply
 * passed through, usage reported by the server or counted by the gateway, the demand, and
 * upstream errors and malformed replies.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import imageGeneration from '../../../plugins/image-generation/index.js'
import { imageDemand, imageTokens } from '../../../plugins/image-generation/image-usage.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { startFakeUpstream, type FakeUpstream } from '../../support/fake-upstream.js'
import type { Kernel } from '../../../kernel/contract/kernel.js'

const test = suite('plugin image-generation')
let upstream: FakeUpstream
let kernel: Kernel

test.before(async () => {
  upstream = await startFakeUpstream()
  kernel = makeKernel({ simulatorUrl: upstream.url })
})
test.after(async () => upstream.close())

function serve(body: unknown, status = 200): void {
  upstream.handle((_req, _body, res) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
  )
}

function run(body: Record<string, unknown>, modelId = 'sim-image') {
  const full = { model: modelId, prompt: 'a red fox', ...body }
  const b = full as { prompt: string; n?: number; size?: string }
  return runPlugin(
    imageGeneration,
    {},
    {
      kernel,
      state: { model: { requested: modelId, model: kernel.catalog.model(modelId)! } },
      body: full,
      demand: () => imageDemand(b.prompt, b.n ?? 1, b.size),
    },
  )
}

test('token rule: 1,056 per megapixel; auto reserves the largest common size', () => {
  assert.equal(
    [imageTokens('1024x1024'), imageTokens('512x512'), imageTokens('256x256'), imageTokens('auto')],
    [1056, 264, 66, 1584],
  )
  assert.equal(imageDemand('abcd', 2, '512x512'), { inputTokens: 2, outputTokens: 528, choices: 1, adjustable: false })
})

test('POST /v1/images/generations with the served name and the fields as sent; the reply and the server’s usage', async () => {
  const sent = {
    created: 1,
    data: [{ b64_json: 'AAAA' }],
    usage: { input_tokens: 7, output_tokens: 264, total_tokens: 271 },
  }
  serve(sent)
  const r = await run({ n: 1, size: '512x512', response_format: 'b64_json', quality: 'medium' })
  assert.is(r.error, undefined)
  const received = upstream.received.at(-1)!
  assert.is(received.path, '/v1/images/generations')
  assert.equal(received.body, {
    model: 'sim-image',
    prompt: 'a red fox',
    n: 1,
    size: '512x512',
    response_format: 'b64_json',
    quality: 'medium',
  })
  assert.equal((r.reply as { body: unknown }).body, sent)
  const used = r.ex.usage.used()
  assert.equal([used.inputTokens, used.outputTokens, used.source], [7, 264, 'reported'])
  assert.equal(r.ex.state.imageGeneration, { modelId: 'sim-image', images: 1, size: '512x512' })
})

test('a server without usage (dall-e style): the gateway counts the prompt and each image by its size', async () => {
  serve({ created: 1, data: [{ b64_json: 'AAAA' }, { b64_json: 'BBBB' }] })
  const r = await run({ n: 2, size: '256x256' })
  const used = r.ex.usage.used()
  assert.equal([used.inputTokens, used.outputTokens], [1 + Math.ceil('a red fox'.length / 4), 2 * 66])
})

test('errors: the server’s pass through; no data list is 502; a model of another type is 400', async () => {
  serve(
    {
      error: {
        message: "'300x300' is not one of ['auto'] - 'size'",
        type: 'BadRequestError',
        param: 'size',
        code: 400,
      },
    },
    400,
  )
  const refused = await run({ size: '300x300' })
  assert.equal([refused.error?.status, refused.error?.message], [400, "'300x300' is not one of ['auto'] - 'size'"])
  serve({ created: 1 })
  const malformed = await run({})
  assert.equal(
    [malformed.error?.status, malformed.error?.message],
    [502, 'upstream sent a malformed images reply: no data list'],
  )
  const chat = await run({}, 'sim-chat-instruct')
  assert.equal(
    [chat.error?.status, chat.error?.message],
    [400, 'model sim-chat-instruct is not an image generation model'],
  )
})

test.run()
