/**
 * The chat upload over HTTP (POST /query/v1/chat_upload) on the real gateway with the
 * simulator: a PDF, a PNG and a WAV are stored for the session (documents as text with page
 * lines, the image as a data URL, the audio as the transcription route's transcript), a query's
 * `inContextFiles` then finds them in the store the gateway uses, the transcription is recorded
 * under the project's key (`demo`), and every refusal of the route has its status and message.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_DEV_TOKEN, TEST_SERVICE_TOKEN, type TestGateway } from '../support/gateway.js'
import { threePagePdf } from '../support/three-page-pdf.js'
import { toneWav } from '../support/audio.js'
import { inContextFiles } from '../../plugins/query/in-context-files.js'

const test = suite('e2e: query chat upload')
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
)
const LIMITS = { max_files: 4, max_file_bytes: 300_000, max_total_bytes: 400_000, ttl_minutes: 60 }

let gw: TestGateway
let pdf: Buffer
const wav = toneWav(1)

test.before(async () => {
  pdf = Buffer.from(await threePagePdf())
  gw = await startTestGateway({
    server: {
      query: { history_retention_days: 30, history_max_turns: 200, purge_every_minutes: 10, uploads: LIMITS } as never,
    },
  })
})
test.after(async () => {
  await gw?.close()
})

interface Part {
  field: string
  name?: string
  type?: string
  data: Buffer | string
}

async function upload(
  parts: Part[],
  o: { token?: string | null; fields?: Record<string, string | string[]> } = {},
): Promise<{ status: number; body: any }> {
  const form = new FormData()
  for (const [k, v] of Object.entries(o.fields ?? { project_id: 'demo' }))
    for (const one of Array.isArray(v) ? v : [v]) form.append(k, one)
  for (const p of parts) form.append(p.field, new Blob([p.data], p.type ? { type: p.type } : {}), p.name)
  const headers: Record<string, string> = {}
  const token = o.token === undefined ? TEST_DEV_TOKEN : o.token
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetch(`${gw.url}/query/v1/chat_upload`, { method: 'POST', headers, body: form })
  return { status: res.status, body: await res.json() }
}

const pdfPart: Part = { field: 'docs', name: 'harbour.pdf', type: 'application/pdf', data: Buffer.alloc(0) }

test('a PDF, a PNG and a WAV: stored for the session, each ready for a prompt, and found by inContextFiles', async () => {
  const before = Date.now()
  const { status, body } = await upload([
    { ...pdfPart, data: pdf },
    { field: 'images', name: 'dot.png', type: 'image/png', data: PNG },
    { field: 'audios', name: 'tone.wav', type: 'audio/wav', data: wav },
  ])
  assert.is(status, 200, JSON.stringify(body))
  assert.type(body.query_id, 'string')
  assert.type(body.session_id, 'string', 'a session is made when none is sent')
  assert.ok(
    body.expires_at * 1000 >= before + 59 * 60_000 && body.expires_at * 1000 <= Date.now() + 60 * 60_000,
    `expires_at ${body.expires_at}`,
  )
  assert.equal(
    body.files.map((f: any) => [f.name, f.kind, f.content_type, f.bytes]),
    [
      ['harbour.pdf', 'doc', 'application/pdf', pdf.length],
      ['dot.png', 'image', 'image/png', PNG.length],
      ['tone.wav', 'audio', 'audio/wav', wav.length],
    ],
  )
  assert.ok(body.files[0].tokens > 10, 'a document says its tokens')
  assert.is(body.files[1].tokens, undefined, 'an image has no text tokens')
  assert.type(body.files[2].tokens, 'number')

  const got = await inContextFiles(gw.generation().domains.query.uploads, {
    projectId: 'demo',
    sessionId: body.session_id,
    queryId: body.query_id,
    chatUpload: { images: ['dot.png'], docs: ['harbour.pdf'], audios: ['tone.wav'] },
  })
  assert.equal(got.imageParts, [
    { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
  ])
  assert.match(got.text, /^--- document: harbour\.pdf ---\n\[page 1\]\n\nAlpha harbour opens at dawn\./)
  assert.match(got.text, /\[page 2\]\n\nBravo berths/)
  assert.match(got.text, /\[page 3\]\n\nCharlie signals/)
  assert.match(got.text, /--- audio transcript: tone\.wav ---\n\S/)
  assert.equal(
    got.files.map((f) => f.kind),
    ['image', 'doc', 'audio'],
  )
})

test('the transcription ran through the gateway route, recorded under the project key demo', async () => {
  const deadline = Date.now() + 5000
  let rows: Awaited<ReturnType<ReturnType<TestGateway['generation']>['records']['list']>> = []
  while (Date.now() < deadline) {
    rows = (await gw.generation().records.list({ from: 0, to: Date.now() + 1 }, 1000)).filter(
      (r) => r.route === 'audio-transcriptions-internal',
    )
    if (rows.length > 0) break
    await new Promise((r) => setTimeout(r, 50))
  }
  assert.is(rows.length, 1)
  assert.is(rows[0]!.keyId, 'demo')
  assert.is(rows[0]!.model, 'sim-whisper')
  assert.is(rows[0]!.status, 200)
  assert.ok(rows[0]!.audioSeconds > 0.9 && rows[0]!.audioSeconds < 1.1, `audio seconds ${rows[0]!.audioSeconds}`)
  assert.ok(rows[0]!.value > 0, 'priced by the minute of audio')
})

test('a session sent is kept; a service token needs no project_id; names are per upload', async () => {
  const first = await upload(
    [{ field: 'docs', name: 'a.md', type: 'text/markdown', data: '# Title\n\nSome *text*.' }],
    { token: TEST_SERVICE_TOKEN, fields: { session_id: 'chat-7' } },
  )
  assert.is(first.status, 200, JSON.stringify(first.body))
  assert.is(first.body.session_id, 'chat-7')
  const second = await upload([{ field: 'docs', name: 'a.md', type: 'text/plain', data: 'other' }], {
    fields: { project_id: 'demo', session_id: 'chat-7' },
  })
  assert.is(second.status, 200)
  assert.is.not(second.body.query_id, first.body.query_id)
  const a = await inContextFiles(gw.generation().domains.query.uploads, {
    projectId: 'demo',
    sessionId: 'chat-7',
    queryId: first.body.query_id,
    chatUpload: { docs: ['a.md'] },
  })
  assert.is(a.text, '--- document: a.md ---\n# Title\n\nSome *text*.')
})

const refusals: {
  what: string
  parts: Part[]
  token?: string | null
  fields?: Record<string, string | string[]>
  status: number
  message: string | RegExp
}[] = [
  { what: 'no token', parts: [], token: null, status: 401, message: 'missing bearer token' },
  { what: 'an unknown token', parts: [], token: 'nope', status: 401, message: 'invalid access token' },
  {
    what: 'a developer token without project_id',
    parts: [{ field: 'docs', name: 'a.txt', data: 'x' }],
    fields: {},
    status: 400,
    message: 'project_id is required with a developer token',
  },
  {
    what: 'another project',
    parts: [{ field: 'docs', name: 'a.txt', data: 'x' }],
    fields: { project_id: 'other' },
    status: 403,
    message: 'this token is not valid for project other',
  },
  { what: 'no file', parts: [], status: 400, message: 'a file is required in one of images, docs, audios' },
  {
    what: 'a file in an unknown field',
    parts: [{ field: 'videos', name: 'v.mp4', data: 'x' }],
    status: 400,
    message: 'file v.mp4 is in field videos, which is not one of images, docs, audios',
  },
  {
    what: 'too many files',
    parts: Array.from({ length: 5 }, (_, i) => ({ field: 'docs', name: `n${i}.txt`, data: 'x' })),
    status: 400,
    message: 'too many files: 5 sent, at most 4 per upload (query.uploads.max_files)',
  },
  {
    what: 'a file too big',
    parts: [{ field: 'docs', name: 'big.txt', type: 'text/plain', data: Buffer.alloc(300_001, 97) }],
    status: 413,
    message: 'file big.txt is 300001 bytes; at most 300000 per file (query.uploads.max_file_bytes)',
  },
  {
    what: 'files too big together',
    parts: [1, 2].map((i) => ({
      field: 'docs',
      name: `half${i}.txt`,
      type: 'text/plain',
      data: Buffer.alloc(200_001, 97),
    })),
    status: 413,
    message: 'the files add up to 400002 bytes; at most 400000 per upload (query.uploads.max_total_bytes)',
  },
  {
    what: 'an empty file',
    parts: [{ field: 'docs', name: 'empty.txt', data: '' }],
    status: 400,
    message: 'file empty.txt is empty',
  },
  {
    what: 'a name sent twice',
    parts: [
      { field: 'docs', name: 'a.txt', data: 'x' },
      { field: 'docs', name: 'a.txt', data: 'y' },
    ],
    status: 400,
    message: 'file name a.txt is sent twice; names must be unique within an upload',
  },
  {
    what: 'not an image',
    parts: [{ field: 'images', name: 'fake.png', type: 'image/png', data: 'not a png' }],
    status: 415,
    message: 'file fake.png in images is not a PNG, JPEG, WebP or GIF image',
  },
  {
    what: 'not audio',
    parts: [{ field: 'audios', name: 'fake.wav', type: 'audio/wav', data: PNG }],
    status: 415,
    message: 'file fake.wav in audios is not audio the transcription reads (WAV, MP3, FLAC or Ogg)',
  },
  {
    what: 'a document type not read',
    parts: [{ field: 'docs', name: 'sheet.xlsx', type: 'application/vnd.ms-excel', data: 'x' }],
    status: 415,
    message: /^file sheet\.xlsx in docs: content type application\/vnd\.ms-excel is not a document format/,
  },
  {
    what: 'a PDF that cannot be read',
    parts: [{ field: 'docs', name: 'broken.pdf', type: 'application/pdf', data: '%PDF-1.7 broken' }],
    status: 400,
    message: /^file broken\.pdf: the PDF could not be read/,
  },
  {
    what: 'session_id twice',
    parts: [{ field: 'docs', name: 'a.txt', data: 'x' }],
    fields: { project_id: 'demo', session_id: ['a', 'b'] },
    status: 400,
    message: 'session_id must be sent once',
  },
  {
    what: 'a session_id with a control character',
    parts: [{ field: 'docs', name: 'a.txt', data: 'x' }],
    fields: { project_id: 'demo', session_id: 'a\u0001b' },
    status: 400,
    message: 'session_id must be 1 to 128 characters, none of them control characters',
  },
]

for (const r of refusals) {
  test(`refused: ${r.what} → ${r.status}`, async () => {
    const { status, body } = await upload(r.parts, { token: r.token, fields: r.fields })
    assert.is(status, r.status, JSON.stringify(body))
    assert.is(body.error.status, r.status)
    if (typeof r.message === 'string') assert.is(body.error.message, r.message)
    else assert.match(body.error.message, r.message)
  })
}

test('refused: a body that is not multipart → 400', async () => {
  const res = await fetch(`${gw.url}/query/v1/chat_upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_DEV_TOKEN}`, 'content-type': 'application/json' },
    body: '{}',
  })
  assert.is(res.status, 400)
  assert.is(
    ((await res.json()) as any).error.message,
    'the request must be multipart/form-data with a images, docs, audios field',
  )
})

test('a refused upload stores nothing and transcribes nothing', async () => {
  const before = (await gw.generation().records.list({ from: 0, to: Date.now() + 1 }, 1000)).filter(
    (r) => r.route === 'audio-transcriptions-internal',
  ).length
  const { status } = await upload([
    { field: 'audios', name: 'tone.wav', type: 'audio/wav', data: wav },
    { field: 'images', name: 'fake.png', data: 'nope' },
  ])
  assert.is(status, 415)
  const unreadable = await upload([
    { field: 'audios', name: 'tone.wav', type: 'audio/wav', data: wav },
    { field: 'docs', name: 'broken.pdf', type: 'application/pdf', data: '%PDF-1.7 broken' },
  ])
  assert.is(unreadable.status, 400, 'a document that cannot be read fails before the audio is transcribed')
  const after = (await gw.generation().records.list({ from: 0, to: Date.now() + 1 }, 1000)).filter(
    (r) => r.route === 'audio-transcriptions-internal',
  ).length
  assert.is(after, before)
})

test.run()
