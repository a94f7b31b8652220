/**
 * The embedder's pool of model threads (kernel/services/embedder/embedder-worker.ts): a batch is
 * shared among the threads and comes back as one thread would give it; threads start on their
 * first job; a hung thread is restarted at its deadline and the pool serves on.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { embedderThreads } from '../../bin/embedded-servers.js'
import { splitEvenly } from '../../kernel/services/embedder/embedder-worker.js'
import { startEmbedder, type RunningEmbedder } from '../../kernel/services/embedder/index.js'
import { startTestGateway, TEST_KEY } from '../support/gateway.js'

const test = suite('kernel: the embedder pool')
const started: RunningEmbedder[] = []
test.after(async () => {
  await Promise.all(started.map((e) => e.close()))
})

async function embedder(options: { threads: number; deadlineMs?: number; idleMs?: number }): Promise<RunningEmbedder> {
  const e = await startEmbedder(options)
  started.push(e)
  return e
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const TEXTS = Array.from(
  { length: 20 },
  (_, i) => `Sentence ${i}: the write-ahead log keeps ${'readers and writers apart '.repeat(1 + (i % 4))}in SQLite.`,
)

async function embed(e: RunningEmbedder, input: string[]): Promise<{ status: number; vectors: number[][] }> {
  const res = await fetch(`${e.url}/v1/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'use-lite', input }),
  })
  const body = (await res.json()) as { data?: { embedding: number[] }[] }
  return { status: res.status, vectors: body.data?.map((d) => d.embedding) ?? [] }
}

test('splitEvenly: contiguous parts of about equal length, in order, never more than asked', () => {
  const texts = ['aaaa', 'bb', 'cc', 'dddd', 'e', 'fff']
  const parts = splitEvenly(texts, 2)
  assert.equal(parts.flat(), texts)
  assert.equal(
    parts.map((p) => p.join('').length),
    [8, 8],
  )
  assert.equal(splitEvenly(texts, 1), [texts])
  assert.is(splitEvenly(['only'], 4).length, 1)
})

test('embedder.threads: 0 means one per CPU, at most 4; a number is taken as it is', () => {
  assert.ok(embedderThreads(0) >= 1 && embedderThreads(0) <= 4)
  assert.is(embedderThreads(3), 3)
})

test("server.yaml embedder.threads sizes the gateway's pool, embedder.idle_s ends the second thread when idle", async () => {
  const gw = await startTestGateway({ server: { embedder: { threads: 2, idle_s: 1 } } })
  try {
    const res = await fetch(`${gw.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'use-lite', input: TEXTS }),
    })
    assert.is(res.status, 200)
    assert.is(gw.embedder!.running(), 2)
    await sleep(1600)
    assert.is(gw.embedder!.running(), 1)
  } finally {
    await gw.close()
  }
})

test('threads start on their first job: one text starts one, a batch starts both; the vectors are those of one thread', async () => {
  const one = await embedder({ threads: 1 })
  const two = await embedder({ threads: 2 })
  assert.is(two.running(), 0)
  assert.is((await embed(two, ['one query'])).status, 200)
  assert.is(two.running(), 1)
  const [single, pooled] = await Promise.all([embed(one, TEXTS), embed(two, TEXTS)])
  assert.is(two.running(), 2)
  assert.is(pooled.vectors.length, TEXTS.length)
  // The same texts in other batches: equal up to float rounding.
  pooled.vectors.forEach((v, i) => {
    const w = single.vectors[i]!
    assert.ok(
      v.every((x, j) => Math.abs(x - w[j]!) < 1e-5),
      `vector ${i} differs`,
    )
  })
})

test('a hung thread: its part gets 504 at the deadline, the thread restarts, the next batch is served by both', async () => {
  const e = await embedder({ threads: 2, deadlineMs: 2000 })
  await embed(e, TEXTS) // both threads loaded: the deadline counts from a job's start, not the load
  e.hangNextJob()
  const hung = await embed(e, TEXTS)
  assert.is(hung.status, 504)
  await servedByBoth(e)
})

test('a thread past the first ends after idleMs without a job, the first after ten times that; a later batch starts them again', async () => {
  const e = await embedder({ threads: 2, idleMs: 300 })
  await servedByBoth(e)
  await sleep(1000)
  assert.is(e.running(), 1)
  await sleep(2500)
  assert.is(e.running(), 0)
  await servedByBoth(e)
})

test('idleMs 0: threads stay loaded', async () => {
  const e = await embedder({ threads: 2, idleMs: 0 })
  await servedByBoth(e)
  await sleep(500)
  assert.is(e.running(), 2)
})

/** A batch answered whole, a vector a text, with both threads running after it. */
async function servedByBoth(e: RunningEmbedder): Promise<void> {
  const res = await embed(e, TEXTS)
  assert.is(res.status, 200)
  assert.is(res.vectors.length, TEXTS.length)
  assert.is(e.running(), 2)
}

test.run()
