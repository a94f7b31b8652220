/**
 * The chat upload contract, run against both implementations (SQLite, PostgreSQL): files per
 * project, session and query_id; expired files never returned and purged.
 */
import * as assert from 'uvu/assert'
import { openUploads } from '../../../domains/query/upload-store.js'
import type { UploadedFile } from '../../../domains/query/uploads.js'
import {
  queryStoreFixture,
  serversFor,
  type QueryStoreFixture,
  type QueryStoreKind,
} from '../../support/query-stores.js'
import { suiteNeeding } from '../../support/needs-server.js'

const HOUR = 3_600_000

const image: UploadedFile = {
  name: 'cat.png',
  kind: 'image',
  contentType: 'image/png',
  bytes: 68,
  dataUrl: 'data:image/png;base64,iVBORw0KGgo=',
}
const doc: UploadedFile = {
  name: 'notes.pdf',
  kind: 'doc',
  contentType: 'application/pdf',
  bytes: 1200,
  text: '[page 1]\nAlpha harbour',
}
const audio: UploadedFile = {
  name: 'call.wav',
  kind: 'audio',
  contentType: 'audio/wav',
  bytes: 32044,
  text: 'hello there',
}

function uploadContract(kind: QueryStoreKind): void {
  const test = suiteNeeding(serversFor(kind), `query upload store: ${kind}`)
  let fx: QueryStoreFixture | undefined
  let uploads: Awaited<ReturnType<typeof openUploads>> | undefined
  test.before(async () => {
    fx = await queryStoreFixture(kind)
    uploads = await openUploads(fx.options)
  })
  test.after(async () => {
    await uploads?.close()
    await fx?.cleanup()
  })
  const it = (name: string, fn: (u: NonNullable<typeof uploads>, f: QueryStoreFixture) => Promise<void>) =>
    test(name, () => fn(uploads!, fx!))

  it('the files of an upload come back by name, in the order asked, each field intact', async (u, f) => {
    await u.put('p1', 's1', 'q1', [image, doc, audio], f.clock.t + HOUR)
    const got = await u.get('p1', 's1', 'q1', ['call.wav', 'cat.png', 'notes.pdf'])
    assert.equal(got.missing, [])
    assert.equal(got.files, [audio, image, doc])
  })

  it('names not found are listed in missing; a name asked twice comes once', async (u) => {
    const got = await u.get('p1', 's1', 'q1', ['cat.png', 'nope.txt', 'cat.png'])
    assert.equal(
      got.files.map((x) => x.name),
      ['cat.png'],
    )
    assert.equal(got.missing, ['nope.txt'])
    assert.equal(await u.get('p1', 's1', 'q1', []), { files: [], missing: [] })
  })

  it('another project, session or query_id sees none of them', async (u) => {
    for (const [p, s, q] of [
      ['p2', 's1', 'q1'],
      ['p1', 's2', 'q1'],
      ['p1', 's1', 'q2'],
    ] as const) {
      const got = await u.get(p, s, q, ['cat.png'])
      assert.equal(got, { files: [], missing: ['cat.png'] }, `${p}/${s}/${q}`)
    }
  })

  it('a name with SQL or JSON in it is only a name', async (u, f) => {
    const odd: UploadedFile = { ...doc, name: `x'); DROP TABLE query_uploads; --"].json` }
    await u.put('p1', 's1', 'q3', [odd], f.clock.t + HOUR)
    assert.equal((await u.get('p1', 's1', 'q3', [odd.name])).files, [odd])
    assert.equal((await u.get('p1', 's1', 'q1', ['cat.png'])).files.length, 1)
  })

  it('an upload is written whole or not at all', async (u, f) => {
    // The same name twice breaks the key on the second row: the first must not stay.
    await u.put('p1', 's1', 'q4', [image, image], f.clock.t + HOUR).then(
      () => assert.unreachable('a duplicate name must fail'),
      () => undefined,
    )
    assert.equal((await u.get('p1', 's1', 'q4', ['cat.png'])).missing, ['cat.png'])
  })

  it('expired files are never returned, and the purge removes them', async (u, f) => {
    const start = f.clock.t
    await u.put('p1', 's9', 'short', [doc], start + HOUR)
    await u.put('p1', 's9', 'long', [doc], start + 3 * HOUR)
    f.clock.t = start + HOUR
    assert.equal((await u.get('p1', 's9', 'short', ['notes.pdf'])).missing, ['notes.pdf'], 'expired at expiresAt')
    assert.equal((await u.get('p1', 's9', 'long', ['notes.pdf'])).files.length, 1)
    const purged = await u.purge()
    assert.ok(purged >= 1, `purged ${purged}`)
    f.clock.t = start
    assert.equal((await u.get('p1', 's9', 'short', ['notes.pdf'])).missing, ['notes.pdf'], 'the row is gone')
    assert.equal((await u.get('p1', 's9', 'long', ['notes.pdf'])).files.length, 1)
  })

  test.run()
}

uploadContract('sqlite')
uploadContract('postgres')
