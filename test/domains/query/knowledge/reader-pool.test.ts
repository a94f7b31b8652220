/**
 * The reader pool's child processes (domains/query/knowledge/readers/reader-pool.ts): a process
 * killed at its deadline or dead out of heap frees its slot, and the next document waiting is
 * read by a new one; an idle process ends. Statuses and order only: nothing here is timed, and
 * the deadline is far from both documents' reading times (a small Markdown read by a new process
 * within 5 s; 2 MB of backtick runs that never close, which took the Markdown parser 194 s on
 * the event loop in issue 31 and stay under the heap limit).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { GatewayError } from '../../../../kernel/contract/errors.js'
import { DEFAULT_READER_LIMITS, type ReaderLimits } from '../../../../domains/query/knowledge/readers/limits.js'
import { ReaderPool } from '../../../../domains/query/knowledge/readers/reader-pool.js'
import { backtickRuns, markdownTable } from '../../../support/hostile-documents.js'

const test = suite('knowledge: the reader pool (child processes)')
const pools: ReaderPool[] = []
test.after(async () => {
  await Promise.all(pools.map((p) => p.close()))
})

function pool(limits: Partial<ReaderLimits>, options?: { idleMs?: number }): ReaderPool {
  const p = new ReaderPool({ ...DEFAULT_READER_LIMITS, workers: 1, ...limits }, options)
  pools.push(p)
  return p
}

const markdown = (text: string) => ({ bytes: Buffer.from(text), contentType: 'text/markdown', fileName: 'a.md' })
const SMALL = markdown('# Harbour\n\nThe harbour opens at dawn.\n')

/** Reads each document at once (they queue for the one process) and lists the outcomes in the order they settle. */
async function settleOrder(p: ReaderPool, docs: Array<[string, ReturnType<typeof markdown>]>): Promise<string[]> {
  const order: string[] = []
  await Promise.all(
    docs.map(([name, doc]) =>
      p.text(doc).then(
        (r) => void order.push(`${name}: read, ${r.text.length > 0 ? 'with text' : 'empty'}`),
        (err: Error) =>
          void order.push(`${name}: ${err instanceof GatewayError ? err.status : 'error'} ${err.message}`),
      ),
    ),
  )
  return order
}

test('a process killed at its deadline frees its slot: the next document waiting is read by a new one', async () => {
  const p = pool({ timeoutMs: 5000 })
  const order = await settleOrder(p, [
    ['slow.md', markdown(backtickRuns(2_000_000))],
    ['small.md', SMALL],
  ])
  assert.equal(order, [
    'slow.md: 422 the document took longer than 5000 ms to read; the limit is 5000 (knowledge.readers.timeout_ms)',
    'small.md: read, with text',
  ])
  assert.is(p.size, 1, 'one process: the new one, kept warm; the killed one is gone')
})

test('a process out of heap (memory_mb) frees its slot: 422 naming the limit, then the next document is read', async () => {
  const p = pool({ memoryMb: 32 })
  const order = await settleOrder(p, [
    ['table.md', markdown(markdownTable(200, 1000))],
    ['small.md', SMALL],
  ])
  assert.equal(order, [
    'table.md: 422 reading the document needed more than 32 MiB of memory; the limit is 32 (knowledge.readers.memory_mb)',
    'small.md: read, with text',
  ])
})

test('refusals inside a process keep it: the same process reads the next document; an idle one ends', async () => {
  const p = pool({ maxDepth: 8 }, { idleMs: 200 })
  const order = await settleOrder(p, [
    ['deep.md', markdown(`${'> '.repeat(20)}x\n`)],
    ['small.md', SMALL],
  ])
  assert.equal(order, [
    'deep.md: 422 a line opens more than 8 nested block quotes or lists; the limit is 8 (knowledge.readers.max_depth)',
    'small.md: read, with text',
  ])
  assert.is(p.size, 1)
  for (let i = 0; i < 200 && p.size > 0; i++) await new Promise((r) => setTimeout(r, 50))
  assert.is(p.size, 0, 'the idle process ended')
  assert.equal((await p.text(SMALL)).tokens > 0, true, 'a new process reads after the idle one ended')
})

test('a closed pool ends its processes and refuses further documents', async () => {
  const p = pool({})
  await p.text(SMALL)
  assert.is(p.size, 1)
  await p.close()
  assert.is(p.size, 0)
  await p.text(SMALL).then(
    () => assert.unreachable('read after close'),
    (err: Error) => assert.match(err.message, /closed/),
  )
})

test.run()
