/**
 * The sample collection of the embedded default: `npm start` (the real process, on the shipped
 * config) ingests config/sample/ into collection `sample` of project `demo` after it listens,
 * so that a search for "How do I create an API key?" finds the document that answers it; a
 * second start leaves it as it is. Turned off, or unable to ingest, the gateway serves anyway.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { repoRoot } from '../../kernel/contract/paths.js'
import { seedSampleCollection } from '../../domains/query/sample-collection.js'
import { startTestGateway, TEST_KEY } from '../support/gateway.js'
import { startMainProcess, type MainProcess } from '../support/main-process.js'

const test = suite('e2e the sample collection')
const ADMIN = 'sk-admin-sample-e2e'

function start(data: string): Promise<MainProcess> {
  return startMainProcess({
    SLUICE_DATA: data,
    SLUICE_ADMIN_KEY: ADMIN,
    SLUICE_DEMO_KEY: TEST_KEY,
    SLUICE_DEMO_DEV_TOKEN: 'qt-dev',
    SLUICE_DEMO_SERVICE_TOKEN: 'qt-svc',
  })
}

interface Doc {
  source_name: string
  chunks: number
  updated_at: string
}

async function documents(url: string): Promise<Doc[] | undefined> {
  const res = await fetch(`${url}/knowledge/v1/projects/demo/collections/sample/documents`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  })
  if (res.status === 404) return undefined
  assert.is(res.status, 200)
  return ((await res.json()) as { data: Doc[] }).data
}

const shipped = fs
  .readdirSync(path.join(repoRoot, 'config', 'sample'))
  .filter((f) => /\.(md|txt)$/.test(f))
  .sort()

test('the first start ingests config/sample/ in the background; search finds the answer; a second start leaves it', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-sample-'))
  const first = await start(data)
  let docs: Doc[] | undefined
  for (let i = 0; i < 200 && docs?.length !== shipped.length; i++) {
    await new Promise((r) => setTimeout(r, 100))
    docs = await documents(first.url)
  }
  assert.equal(docs?.map((d) => d.source_name).sort(), shipped, 'every sample document is in the collection')
  assert.ok(docs!.every((d) => d.chunks > 0))

  const res = await fetch(`${first.url}/knowledge/v1/projects/demo/collections/sample/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'How do I create an API key?', top_k: 3 }),
  })
  assert.is(res.status, 200)
  const found = JSON.stringify(await res.json())
  assert.match(found, 'api-keys.md')
  first.child.kill('SIGTERM')
  assert.is(await first.exited, 0)

  const second = await start(data)
  // The second start finds the collection and ingests nothing: the documents keep their times.
  await new Promise((r) => setTimeout(r, 1000))
  const again = await documents(second.url)
  assert.equal(
    again?.map((d) => [d.source_name, d.updated_at]).sort(),
    docs!.map((d) => [d.source_name, d.updated_at]).sort(),
  )
  second.child.kill('SIGTERM')
  await second.exited
})

test('turned off in server.yaml: nothing is ingested', async () => {
  const gw = await startTestGateway({
    server: {
      query: {
        sample_collection: { enabled: false, project: 'demo', collection: 'sample', folder: 'sample' },
      } as never,
    },
  })
  try {
    assert.is(await seedSampleCollection(gw.generation()), 'disabled')
    assert.equal(await gw.generation().domains.query.knowledge.listCollections('demo'), [])
  } finally {
    await gw.close()
  }
})

test('a sample that cannot be ingested is a warning, leaves no half-made collection, and the gateway serves', async () => {
  const gw = await startTestGateway({ env: { SLUICE_DEMO_KEY: TEST_KEY } })
  try {
    // The test deployment's config folder has no sample/ folder.
    assert.is(await seedSampleCollection(gw.generation()), 'failed')
    assert.ok(gw.logs.some((l) => l.includes('the sample collection was not ingested')))
    assert.equal(await gw.generation().domains.query.knowledge.listCollections('demo'), [])
    // A document that cannot be read: the collection made for it is removed again.
    fs.mkdirSync(path.join(gw.configDir, 'sample'))
    fs.writeFileSync(path.join(gw.configDir, 'sample', 'empty.md'), '   \n')
    assert.is(await seedSampleCollection(gw.generation()), 'failed')
    assert.equal(await gw.generation().domains.query.knowledge.listCollections('demo'), [])
    // A readable one is ingested; then the collection is left as it is.
    fs.writeFileSync(path.join(gw.configDir, 'sample', 'empty.md'), '# Hello\n\nSluice is a gateway.\n')
    assert.is(await seedSampleCollection(gw.generation()), 'ingested')
    assert.is(await seedSampleCollection(gw.generation()), 'exists')
    assert.is((await gw.openai().models.list()).data.length > 0, true)
  } finally {
    await gw.close()
  }
})

test.run()
