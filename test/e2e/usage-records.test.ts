/**
 * Usage records end to end: after traffic of every kind (plain, streamed, streamed with usage,
 * legacy completions, a stream cut by the model server, an in-process call), the records hold
 * every request that reached a model, with its figures; and a search of the whole data folder
 * and of the logs for the prompt text of those requests finds nothing.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { startTestGateway, type TestGateway } from '../support/gateway.js'

const test = suite('e2e usage records')
let gw: TestGateway
// A phrase no code writes: if it is anywhere on disk or in a log, a prompt leaked.
const SECRET = `marmalade-${crypto.randomBytes(8).toString('hex')}-zeppelin`
const REPLY_HINT = 'simulator' // every simulated reply says it comes from a simulator

test.before(async () => {
  gw = await startTestGateway({ simulatorLatency: { ttft_ms: 5, itl_ms: 1 } })
})

const ids: { id: string; route: string; status: number }[] = []
const prompt = (what: string) => `${what}: ${SECRET}`

test('traffic of every kind', async () => {
  const client = gw.openai()
  const plain = await client.chat.completions
    .create({ model: 'sim-chat', messages: [{ role: 'user', content: prompt('plain') }], max_tokens: 12 })
    .withResponse()
  ids.push({ id: plain.response.headers.get('x-gateway-request-id')!, route: 'chat', status: 200 })

  const streamed = await client.chat.completions
    .create({
      model: 'sim-chat-instruct',
      messages: [{ role: 'user', content: prompt('stream') }],
      stream: true,
      max_tokens: 12,
    })
    .withResponse()
  for await (const _ of streamed.data) void _
  ids.push({ id: streamed.response.headers.get('x-gateway-request-id')!, route: 'chat', status: 200 })

  const withUsage = await client.chat.completions
    .create({
      model: 'sim-vision',
      messages: [
        { role: 'system', content: prompt('system') },
        { role: 'user', content: prompt('usage') },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 12,
    })
    .withResponse()
  for await (const _ of withUsage.data) void _
  ids.push({ id: withUsage.response.headers.get('x-gateway-request-id')!, route: 'chat', status: 200 })

  const legacy = await client.completions
    .create({ model: 'sim-chat-instruct', prompt: prompt('completion'), max_tokens: 8 })
    .withResponse()
  ids.push({ id: legacy.response.headers.get('x-gateway-request-id')!, route: 'completions', status: 200 })

  // ignore_eos (vLLM's): a reply of the full 40 tokens, so the cut after 3 chunks always comes first.
  const cutBody = {
    model: 'sim-chat-instruct',
    messages: [{ role: 'user' as const, content: prompt('cut') }],
    stream: true as const,
    max_tokens: 40,
    ignore_eos: true,
  }
  const cut = await client.chat.completions.create(cutBody, { headers: { 'x-sim-cut-after': '3' } }).withResponse()
  try {
    for await (const _ of cut.data) void _
  } catch {
    // The stream was cut: expected.
  }
  ids.push({ id: cut.response.headers.get('x-gateway-request-id')!, route: 'chat', status: 502 })

  const refused = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk-wrong' },
    body: JSON.stringify({ model: 'sim-chat', messages: [{ role: 'user', content: prompt('refused') }] }),
  })
  assert.is(refused.status, 401)

  const internal = await gw
    .generation()
    .call(
      'chat-internal',
      { model: 'sim-chat-instruct', messages: [{ role: 'user', content: prompt('internal') }], max_tokens: 6 },
      { principal: { keyId: 'demo', group: 'demo', legacy: false } },
    )
  assert.is(internal.reply.kind, 'json')
})

test('the records hold every request that reached a model, with its figures', async () => {
  const records = await gw.generation().records.list({ from: 0, to: Date.now() + 1 }, 1000)
  const byId = new Map(records.map((r) => [r.requestId, r]))
  for (const { id, route, status } of ids) {
    const r = byId.get(id)
    assert.ok(r, `request ${id} (${route}) has a record`)
    assert.equal([r!.route, r!.status, r!.keyId, r!.group], [route, status, 'demo', 'demo'])
    assert.ok(r!.totalMs >= 0 && r!.queueMs !== null && r!.queueMs >= 0, 'timing')
    if (status === 200) {
      assert.ok(r!.promptTokens > 0 && r!.completionTokens > 0, `${id}: tokens`)
      assert.ok(r!.value > 0, `${id}: indicative value`)
      assert.ok(r!.ttftMs !== null && r!.ttftMs <= r!.totalMs, `${id}: time to first token`)
      assert.ok(r!.upstreamModel, `${id}: the server's name`)
    }
  }
  const plain = byId.get(ids[0]!.id)!
  assert.equal(
    [plain.modelRequested, plain.model],
    ['sim-chat', 'sim-chat-instruct'],
    'the family asked for, the member that answered',
  )
  const cut = byId.get(ids[4]!.id)!
  assert.equal([cut.outcome, cut.completionTokens > 0], ['failed', true], 'a cut stream is counted from what streamed')
  const internal = records.filter((r) => r.route === 'chat-internal')
  assert.is(internal.length, 1, 'the in-process call is recorded too')
  assert.is(records.length, ids.length + 1, 'and nothing else: the refused request never reached a model')
  assert.is(byId.get(ids[1]!.id)!.cachedTokens >= 0, true)
})

test('no prompt or reply text in the data folder or the logs', async () => {
  // Closing flushes every buffer and checkpoints nothing away: what is on disk is all there is.
  await gw.close()
  const files: string[] = []
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else files.push(p)
    }
  }
  walk(gw.dataDir)
  assert.ok(
    files.some((f) => f.endsWith('sluice.db')),
    'the records database is in the data folder',
  )
  for (const f of files) {
    const bytes = fs.readFileSync(f)
    assert.not.ok(bytes.includes(SECRET), `${path.basename(f)} holds no prompt text`)
    assert.not.ok(
      bytes.includes(`from the Sluice model-server ${REPLY_HINT}`),
      `${path.basename(f)} holds no reply text`,
    )
  }
  const logs = gw.logs.join('')
  assert.ok(logs.length > 0)
  assert.not.ok(logs.includes(SECRET), 'the logs hold no prompt text')
  assert.not.ok(logs.includes(`model-server ${REPLY_HINT}`), 'the logs hold no reply text')
})

test.run()
