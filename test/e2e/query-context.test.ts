/**
 * A query's context end to end, on the default deployment: a three-turn conversation with
 * history on, whose third prompt holds the first two turns exactly (its conversation_history is
 * the model server's count of those four messages), and the files of a chat upload (a PDF, an
 * image, a WAV) used in a query, each visible in the metadata and the breakdown.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_DEV_TOKEN, TEST_SERVICE_TOKEN, type TestGateway } from '../support/gateway.js'
import { threePagePdf } from '../support/three-page-pdf.js'
import { toneWav } from '../support/audio.js'
import type { UsageRecord } from '../../kernel/contract/records.js'

const test = suite('e2e query context: history and in-context files')
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
)
let gw: TestGateway

type Json = Record<string, any>

async function query(body: object, token = TEST_SERVICE_TOKEN): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${gw.url}/query/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ endpoint: 'query', ...body }),
  })
  return { status: res.status, body: (await res.json()) as Json }
}

/** The model server's token count of a text, as the query's breakdown counts its parts. */
async function serverCount(text: string): Promise<number> {
  const { reply } = await gw
    .generation()
    .call(
      'tokenize-internal',
      { model: 'sim-chat-instruct', texts: { t: text } },
      { principal: { keyId: 'demo', group: 'demo', legacy: false } },
    )
  assert.is(reply.kind, 'json')
  return (reply as { body: { counts: { t: number } } }).body.counts.t
}

test.before(async () => {
  gw = await startTestGateway({ server: { stores: { records_flush_ms: 50 } as never } })
})
test.after(() => gw.close())

test('three turns with history on: the third prompt holds the first two, and conversation_history grows', async () => {
  const session = `s-${Date.now()}`
  const asks = [
    'My name is Ada and I build compilers.',
    'What languages do compilers usually target?',
    'What was my name again?',
  ]
  const turns: Json[] = []
  for (const q of asks) {
    const { status, body } = await query({
      query: q,
      session_id: session,
      request_source: 'override_params',
      enable_history: true,
    })
    assert.is(status, 200, JSON.stringify(body))
    turns.push(body.response)
  }
  const history = turns.map((t) => t.metadata.usage_metric.input_token_details.conversation_history as number)
  assert.is(history[0], 0, 'the first turn has no history')
  assert.ok(history[1]! > 0 && history[2]! > history[1]!, `conversation_history grows: ${history.join(', ')}`)
  assert.equal(
    turns.map((t) => t.metadata.history_messages ?? 0),
    [0, 2, 4],
  )
  // The third prompt's history is exactly the first two queries and their answers.
  const earlier = [asks[0]!, turns[0]!.response, asks[1]!, turns[1]!.response].join('\n')
  assert.is(history[2], await serverCount(earlier))
  // Another session of the same project sees none of it.
  const other = await query({
    query: 'What was my name again?',
    session_id: `${session}-other`,
    request_source: 'override_params',
    enable_history: true,
  })
  assert.is(other.body.response.metadata.usage_metric.input_token_details.conversation_history, 0)
  // Without enable_history, the session's turns are not used.
  const off = await query({ query: 'What was my name again?', session_id: session })
  assert.is(off.body.response.metadata.usage_metric.input_token_details.conversation_history, 0)
})

async function upload(files: { field: string; name: string; type: string; data: Buffer }[]): Promise<Json> {
  const form = new FormData()
  form.append('project_id', 'demo')
  for (const f of files) form.append(f.field, new Blob([f.data], { type: f.type }), f.name)
  const res = await fetch(`${gw.url}/query/v1/chat_upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_DEV_TOKEN}` },
    body: form,
  })
  const body = (await res.json()) as Json
  assert.is(res.status, 200, JSON.stringify(body))
  return body
}

test('an uploaded PDF, image and WAV used in context, each visible in the metadata and the breakdown', async () => {
  const up = await upload([
    { field: 'docs', name: 'harbour.pdf', type: 'application/pdf', data: Buffer.from(await threePagePdf()) },
    { field: 'images', name: 'dot.png', type: 'image/png', data: PNG },
    { field: 'audios', name: 'tone.wav', type: 'audio/wav', data: toneWav(1) },
  ])
  const ids = { project_id: 'demo', query_id: up.query_id, session_id: up.session_id }
  const ask = (chat_upload: object) =>
    query({ ...ids, query: 'What do these files say?', model_name: 'sim-vision', chat_upload }, TEST_DEV_TOKEN)
  const none = await query(
    { project_id: 'demo', query: 'What do these files say?', model_name: 'sim-vision' },
    TEST_DEV_TOKEN,
  )
  const base = none.body.response.metadata.usage_metric.input_token_details.incontext_text
  assert.is(base, 0)
  for (const [list, name, kind] of [
    ['docs', 'harbour.pdf', 'doc'],
    ['images', 'dot.png', 'image'],
    ['audios', 'tone.wav', 'audio'],
  ] as const) {
    const { status, body } = await ask({ [list]: [name] })
    assert.is(status, 200, JSON.stringify(body))
    const m = body.response.metadata
    assert.equal(
      m.files.map((f: Json) => [f.name, f.kind]),
      [[name, kind]],
    )
    assert.ok(m.files[0].tokens > 0, `${name} has tokens`)
    assert.ok(m.usage_metric.input_token_details.incontext_text > 0, `${name} counts as incontext_text`)
  }
  const all = await ask({ docs: ['harbour.pdf'], images: ['dot.png'], audios: ['tone.wav'] })
  assert.is(all.status, 200)
  assert.is(all.body.response.metadata.files.length, 3)
  // The image is counted at the model's tokens_per_image (256 for sim-vision).
  assert.is(all.body.response.metadata.files.find((f: Json) => f.kind === 'image').tokens, 256)
  // The answer is recorded under the project's key with the input the breakdown adds up to.
  await gw.generation().records.flush()
  const m = all.body.response.metadata.usage_metric
  const records = (await gw
    .generation()
    .records.list({ from: 0, to: Date.now() + 1, keyId: 'demo' }, 1000)) as UsageRecord[]
  assert.ok(
    records.some((r) => r.route === 'query-chat' && r.model === 'sim-vision' && r.promptTokens === m.input_token_count),
  )
  // Without query_id and session_id, chat_upload is refused; a file not uploaded is a 404.
  const missing = await query(
    { project_id: 'demo', query: 'x', chat_upload: { docs: ['harbour.pdf'] } },
    TEST_DEV_TOKEN,
  )
  assert.is(missing.status, 400)
  assert.match(missing.body.error.message, /chat_upload needs query_id and session_id/)
  const unknown = await ask({ docs: ['nope.pdf'] })
  assert.is(unknown.status, 404)
  assert.match(unknown.body.error.message, /has no file nope\.pdf/)
})

test.run()
