/**
 * Image URLs in chat, with the openai SDK over real sockets: a URL that is neither a base64
 * data URL nor a public https URL gets 400 before any model server is called (nothing reaches
 * the simulator, no usage record, nothing charged to a budget), also on a text-only model
 * whose vision boon would pass the image to a helper model, and on a stream; data URLs and
 * public https URLs still pass.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import OpenAI from 'openai'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { keysFile } from '../support/deployment-files.js'
import { estimatePromptTokens, TOKENS_PER_MESSAGE } from '../../protocols/openai/token-estimate.js'

const test = suite('e2e chat image URLs (a data URL or a public https URL)')
let gw: TestGateway

type Message = OpenAI.ChatCompletionMessageParam
const withImage = (url: string): Message[] => [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image_url', image_url: { url } },
    ],
  },
]
const png =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
const MAX_TOKENS = 16
// A per-minute token budget that affords exactly one request's reservation: were a refused
// request to charge anything, the good one after it would be shortened or refused.
const ONE_REQUEST =
  estimatePromptTokens({ messages: withImage(png) }, { perMessage: TOKENS_PER_MESSAGE, perImage: 1024 }) + MAX_TOKENS

const refusedUrls = [
  'http://127.0.0.1/x.png',
  'https://169.254.169.254/latest',
  'file:///etc/passwd',
  'https://[::1]/a.png',
  'https://10.0.0.1/a.png',
  'https://localhost/a.png',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://2130706433/a.png',
  'https://[::ffff:169.254.169.254]/latest',
]

test.before(async () => {
  gw = await startTestGateway({
    files: {
      'config/keys.yaml': keysFile({}, [
        { id: 'tight', group: 'demo', secret: 'sk-tight', tokens_per_minute: ONE_REQUEST },
      ]),
    },
  })
})
test.after(async () => gw.close())

async function expect400(p: Promise<unknown>, url: string): Promise<void> {
  try {
    await p
  } catch (err) {
    assert.instance(err, OpenAI.BadRequestError, url)
    const e = err as InstanceType<typeof OpenAI.BadRequestError>
    assert.is(e.status, 400)
    assert.equal(e.error, {
      message: 'messages[0].content[1].image_url.url must be a base64 data URL or a public https:// URL',
      type: 'gateway_error',
    })
    return
  }
  assert.unreachable(`expected 400 for ${url}`)
}

const records = async () => (await gw.generation().records.list({ from: 0, to: Date.now() + 1 }, 10_000)).length

test('400 for file:, http:, loopback, private, link-local and metadata addresses; nothing reaches a model', async () => {
  const client = gw.openai('sk-tight')
  const simBefore = (await gw.simulator!.stats()).requests
  const recordsBefore = await records()
  for (const url of refusedUrls) {
    await expect400(
      client.chat.completions.create({ model: 'sim-vision', messages: withImage(url), max_tokens: MAX_TOKENS }),
      url,
    )
    await expect400(
      client.chat.completions.create({ model: 'sim-text-boon', messages: withImage(url), max_tokens: MAX_TOKENS }),
      `${url} (vision boon)`,
    )
    await expect400(
      client.chat.completions.create({ model: 'auto', messages: withImage(url), max_tokens: MAX_TOKENS, stream: true }),
      `${url} (auto, streamed)`,
    )
  }
  assert.is((await gw.simulator!.stats()).requests, simBefore, 'no request reached the model server')
  assert.is(await records(), recordsBefore, 'no usage record')
  // The per-minute budget is whole: one full request still fits (ignore_eos: the reply is max_tokens long unless shortened).
  const body = { model: 'sim-vision', messages: withImage(png), max_tokens: MAX_TOKENS, ignore_eos: true }
  const ok = await client.chat.completions.create(body as OpenAI.ChatCompletionCreateParamsNonStreaming)
  assert.is(ok.usage?.completion_tokens, MAX_TOKENS, 'nothing was charged to the budget by the refused requests')
})

test('a data URL and a public https URL still pass, to a vision model and through the vision boon', async () => {
  const client = gw.openai()
  for (const url of [png, 'https://images.example.com/cat.png']) {
    const v = await client.chat.completions.create({ model: 'sim-vision', messages: withImage(url) })
    assert.ok(v.choices[0]!.message.content, url)
    const b = await client.chat.completions.create({ model: 'sim-text-boon', messages: withImage(url) }).withResponse()
    assert.is(b.response.headers.get('x-gateway-boons'), 'vision', url)
  }
})

test.run()
