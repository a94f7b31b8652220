/**
 * inContextFiles over the real SQLite upload store: images as image parts, documents and
 * transcripts as text under header lines, and each refusal with its status and message.
 */
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openUploads } from '../../../domains/query/upload-store.js'
import { GatewayError } from '../../../kernel/contract/errors.js'
import { inContextFiles } from '../../../plugins/query/in-context-files.js'
import { queryStoreFixture, type QueryStoreFixture } from '../../support/query-stores.js'

let fx: QueryStoreFixture
let uploads: Awaited<ReturnType<typeof openUploads>>
const ids = { projectId: 'demo', sessionId: 's1', queryId: 'up1' }
const PNG_URL = 'data:image/png;base64,iVBORw0KGgo='

test.before(async () => {
  fx = (await queryStoreFixture('sqlite'))!
  uploads = await openUploads(fx.options)
  await uploads.put(
    'demo',
    's1',
    'up1',
    [
      { name: 'cat.png', kind: 'image', contentType: 'image/png', bytes: 8, dataUrl: PNG_URL },
      {
        name: 'guide.pdf',
        kind: 'doc',
        contentType: 'application/pdf',
        bytes: 900,
        text: '[page 1]\nAlpha harbour opens at dawn.',
      },
      { name: 'call.wav', kind: 'audio', contentType: 'audio/wav', bytes: 32044, text: 'please call back' },
    ],
    fx.clock.t + 3_600_000,
  )
})
test.after(async () => {
  await uploads.close()
  await fx.cleanup()
})

async function refused(p: Promise<unknown>): Promise<GatewayError> {
  try {
    await p
  } catch (err) {
    assert.instance(err, GatewayError)
    return err as GatewayError
  }
  throw new Error('expected a GatewayError')
}

test('no chat_upload: nothing, and the store is not asked', async () => {
  assert.equal(await inContextFiles(uploads, { projectId: 'demo' }), { imageParts: [], text: '', files: [] })
})

test('images become image parts; documents and transcripts one text under header lines', async () => {
  const got = await inContextFiles(uploads, {
    ...ids,
    chatUpload: { images: ['cat.png'], docs: ['guide.pdf'], audios: ['call.wav'] },
  })
  assert.equal(got.imageParts, [{ type: 'image_url', image_url: { url: PNG_URL } }])
  assert.is(
    got.text,
    '--- document: guide.pdf ---\n[page 1]\nAlpha harbour opens at dawn.\n\n--- audio transcript: call.wav ---\nplease call back',
  )
  assert.equal(got.files, [
    { name: 'cat.png', kind: 'image' },
    { name: 'guide.pdf', kind: 'doc', text: '[page 1]\nAlpha harbour opens at dawn.' },
    { name: 'call.wav', kind: 'audio', text: 'please call back' },
  ])
})

test('only the files listed are used', async () => {
  const got = await inContextFiles(uploads, { ...ids, chatUpload: { docs: ['guide.pdf'] } })
  assert.equal(got.imageParts, [])
  assert.equal(got.files, [{ name: 'guide.pdf', kind: 'doc', text: '[page 1]\nAlpha harbour opens at dawn.' }])
  assert.equal(await inContextFiles(uploads, { ...ids, chatUpload: {} }), { imageParts: [], text: '', files: [] })
})

test('chat_upload without query_id or session_id: 400 naming what is missing', async () => {
  const both = await refused(inContextFiles(uploads, { projectId: 'demo', chatUpload: { docs: ['guide.pdf'] } }))
  assert.is(both.status, 400)
  assert.is(both.message, 'chat_upload needs query_id and session_id (both are returned by the chat upload)')
  const q = await refused(
    inContextFiles(uploads, { projectId: 'demo', sessionId: 's1', chatUpload: { docs: ['guide.pdf'] } }),
  )
  assert.is(q.message, 'chat_upload needs query_id (both are returned by the chat upload)')
  const s = await refused(
    inContextFiles(uploads, { projectId: 'demo', queryId: 'up1', chatUpload: { docs: ['guide.pdf'] } }),
  )
  assert.is(s.message, 'chat_upload needs session_id (both are returned by the chat upload)')
})

test('a name not found: 404 naming every missing file', async () => {
  const err = await refused(
    inContextFiles(uploads, { ...ids, chatUpload: { docs: ['guide.pdf', 'nope.md'], images: ['gone.png'] } }),
  )
  assert.is(err.status, 404)
  assert.is(err.message, 'chat upload up1 of session s1 has no file gone.png, nope.md (never uploaded, or expired)')
})

test('another session or project does not see the files: 404', async () => {
  for (const o of [
    { ...ids, sessionId: 's2' },
    { ...ids, projectId: 'other' },
  ]) {
    const err = await refused(inContextFiles(uploads, { ...o, chatUpload: { images: ['cat.png'] } }))
    assert.is(err.status, 404)
  }
})

test('an expired upload: 404', async () => {
  const t = fx.clock.t
  fx.clock.t = t + 3_600_000
  try {
    const err = await refused(inContextFiles(uploads, { ...ids, chatUpload: { images: ['cat.png'] } }))
    assert.is(err.status, 404)
    assert.match(err.message, /no file cat\.png \(never uploaded, or expired\)/)
  } finally {
    fx.clock.t = t
  }
})

test('a name listed under the wrong kind: 400 saying where it belongs', async () => {
  const err = await refused(
    inContextFiles(uploads, { ...ids, chatUpload: { docs: ['cat.png'], images: ['call.wav'] } }),
  )
  assert.is(err.status, 400)
  assert.is(
    err.message,
    'chat_upload lists call.wav under images, but it is an audio file (list it under audios); cat.png under docs, but it is an image (list it under images)',
  )
})

test.run()
