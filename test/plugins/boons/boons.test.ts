import { Usage } from '../../../kernel/contract/usage.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import boons from '../../../plugins/boons/index.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { reply } from '../../../kernel/contract/reply.js'
import { GatewayError } from '../../../kernel/contract/errors.js'

const test = suite('plugin boons (vision)')
const calls: { route: string; body: { model: string; messages: { content: unknown[] }[] } }[] = []
const kernel = makeKernel({
  call: async (route, body) => {
    calls.push({ route, body: body as (typeof calls)[number]['body'] })
    return {
      reply: reply.json({ choices: [{ message: { content: `a picture (${calls.length})` } }] }),
      headers: new Map(),
      usage: new Usage(undefined),
    }
  },
})
const principal = { keyId: 'demo', group: 'demo', legacy: false }
const messages = () => [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'compare' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,BBBB' } },
    ],
  },
]
const run = (id: string, headers: Record<string, string> = {}) =>
  runPlugin(
    boons,
    {},
    {
      kernel,
      principal,
      headers,
      state: { model: { requested: id, model: kernel.catalog.model(id)! } },
      body: { messages: messages() },
    },
  )

test('each image is described by the helper model and replaced by its description', async () => {
  calls.length = 0
  const r = await run('sim-text-boon')
  assert.is(calls.length, 2)
  assert.is(calls[0]!.route, 'chat-internal')
  assert.is(calls[0]!.body.model, 'sim-vision')
  const parts = (r.ex.body as { messages: { content: { type: string; text?: string }[] }[] }).messages[0]!.content
  assert.equal(
    parts.map((p) => p.type),
    ['text', 'text', 'text'],
  )
  assert.match(parts[1]!.text!, /^\[Image 1, as described by sim-vision: a picture/)
  assert.is(r.ex.headers.get('x-gateway-boons'), 'vision')
  assert.equal(r.ex.state.boons, { acted: ['vision'] })
})

test('x-gateway-boons: off turns it off', async () => {
  calls.length = 0
  const r = await run('sim-text-boon', { 'x-gateway-boons': 'off' })
  assert.is(calls.length, 0)
  assert.is(r.ex.headers.get('x-gateway-boons'), undefined)
})

test('vision models and models without the boon are left alone', async () => {
  calls.length = 0
  await run('sim-vision')
  await run('sim-text-plain')
  assert.is(calls.length, 0)
})

test("the helper's error fails the request with that error", async () => {
  const failing = makeKernel({
    call: async () => {
      throw new GatewayError(422, 'Failed to fetch media from URL')
    },
  })
  const r = await runPlugin(
    boons,
    {},
    {
      kernel: failing,
      principal,
      state: { model: { requested: 'sim-text-boon', model: failing.catalog.model('sim-text-boon')! } },
      body: { messages: messages() },
    },
  )
  assert.is(r.error?.status, 422)
  assert.is(r.nextCalled, false)
})

test.run()
