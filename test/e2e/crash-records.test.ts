/**
 * kill -9 of the embedded default (SQLite) under load: every request whose reply reached its
 * client before the kill has its usage record after a restart (the journal is replayed). And
 * the rule behind it: when a reply reaches its client, its record is already in the journal.
 */
import fs from 'node:fs'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { prepareDeployment, TEST_KEY } from '../support/gateway.js'
import { serverWith } from '../support/deployment-files.js'
import { startReplica } from '../support/replica.js'
import { openSqliteStore } from '../../kernel/services/stores/sqlite-store.js'
import { until } from '../support/stuck.js'

const test = suite('e2e kill -9 of the embedded default')

/** Clients that send chat requests one after another until the gateway is gone; ids of the replies they got whole. */
async function load(url: string, clients: number, acknowledged: string[]): Promise<void> {
  const loop = async () => {
    for (;;) {
      try {
        const res = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'sim-chat-instruct',
            messages: [{ role: 'user', content: 'hi' }],
            max_tokens: 4,
          }),
        })
        const id = res.headers.get('x-gateway-request-id')
        await res.text()
        if (res.status === 200 && id) acknowledged.push(id)
      } catch {
        return
      }
    }
  }
  await Promise.all(Array.from({ length: clients }, loop))
}

test('every reply acknowledged before the kill has its record after the restart', async () => {
  // Batches of 50 records and no timer: the kill falls between two, so the records written
  // are in the store and the last ones exist only in the journal.
  const files = prepareDeployment({
    files: { 'config/server.yaml': serverWith({ stores: { records_flush_ms: 600_000, records_batch: 50 } }) },
    simulatorLatency: { ttft_ms: 1, itl_ms: 1 },
  })
  const env = { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_LOG_LEVEL: 'warn' }
  const first = await startReplica({ ...files, env })
  const acknowledged: string[] = []
  const running = load(first.url, 16, acknowledged)
  // A count, not a time: the kill comes once six batches have been written, in the seventh.
  await until('325 replies under load', () => acknowledged.length >= 325)
  await first.kill()
  await running

  const second = await startReplica({ ...files, env, dataDir: first.dataDir })
  await second.stop()
  const store = openSqliteStore(first.dataDir)
  try {
    const records = await store.records.list({ from: 0, to: Date.now() + 1 }, 100_000)
    const ids = new Set(records.map((r) => r.requestId))
    const lost = acknowledged.filter((id) => !ids.has(id))
    assert.is(lost.length, 0, `${lost.length} of ${acknowledged.length} acknowledged requests have no record`)
    assert.is(records.length, ids.size, 'no record twice')
    process.stdout.write(
      `\n  kill -9 after ${acknowledged.length} acknowledged replies: ${records.length} records after restart, 0 lost (${/replayed[^\n]*/.exec(second.stderr())?.[0] ?? 'nothing replayed'})\n`,
    )
  } finally {
    await store.close()
  }
})

test('when a reply reaches its client, its record is already in the journal file', async () => {
  // Batches far apart: every record of this test stays in the journal's open segment.
  const files = prepareDeployment({
    files: { 'config/server.yaml': serverWith({ stores: { records_flush_ms: 600_000, records_batch: 5000 } }) },
  })
  const gateway = await startReplica({ ...files, env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_LOG_LEVEL: 'warn' } })
  const journal = path.join(gateway.dataDir, 'records-journal')
  const journaled = () =>
    fs
      .readdirSync(journal)
      .map((f) => fs.readFileSync(path.join(journal, f), 'utf8'))
      .join('')
  const late: string[] = []
  let replies = 0
  try {
    // The gateway is another process: a client there reads a reply as soon as its bytes leave.
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = 0; i < 60; i++) {
          const res = await fetch(`${gateway.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              model: 'sim-chat-instruct',
              messages: [{ role: 'user', content: 'hi' }],
              max_tokens: 2,
            }),
          })
          const id = res.headers.get('x-gateway-request-id')!
          if (!journaled().includes(`"requestId":"${id}"`)) late.push(id)
          await res.text()
          assert.is(res.status, 200)
          replies++
        }
      }),
    )
  } finally {
    await gateway.stop()
  }
  assert.is(replies, 960)
  assert.equal(late, [], `${late.length} replies arrived before their record was journaled`)
})

test.run()
