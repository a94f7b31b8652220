/**
 * `sluice backup` as a process, while the gateway runs and writes: every SQLite database of
 * the data folder is copied by the online backup API (the copy passes SQLite's integrity check
 * and holds the usage record of a request made just before), the other files are copied, and
 * the exit codes are the CLI's (2 without a folder, 1 for a folder that is not a data folder
 * or a destination that is not empty).
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { repoRoot } from '../../kernel/contract/paths.js'
import { startTestGateway, type TestGateway } from '../support/gateway.js'

const test = suite('e2e sluice backup')
const CLI = path.join(repoRoot, 'dist', 'bin', 'sluice.js')
let gw: TestGateway
let scratch: string

test.before(async () => {
  gw = await startTestGateway()
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-backup-'))
})
test.after(async () => {
  await gw.close()
  fs.rmSync(scratch, { recursive: true, force: true })
})

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    )
  })
}

test('an online backup of a running gateway: every database consistent, the latest record in it', async () => {
  const reply = await gw
    .openai()
    .chat.completions.create({ model: 'sim-chat-instruct', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 })
  await gw.generation().records.flush()
  const dest = path.join(scratch, 'backup-1')
  const result = await run(['backup', dest, '--data', gw.dataDir])
  assert.is(result.code, 0, result.stderr)
  assert.match(result.stdout, /sluice\.db: backed up/)
  const databases = fs.readdirSync(gw.dataDir).filter((f) => f.endsWith('.db'))
  assert.ok(databases.length >= 2)
  assert.not.ok(
    fs.readdirSync(dest).some((f) => /\.db-(wal|shm)$/.test(f)),
    'no WAL files copied: the backups are whole',
  )
  for (const name of databases) {
    const db = new Database(path.join(dest, name), { readonly: true })
    try {
      assert.is(db.pragma('integrity_check', { simple: true }), 'ok', name)
    } finally {
      db.close()
    }
  }
  const db = new Database(path.join(dest, 'sluice.db'), { readonly: true })
  try {
    const row = db.prepare('SELECT completion_tokens AS tokens FROM usage_records ORDER BY at DESC LIMIT 1').get() as
      | { tokens: number }
      | undefined
    assert.is(row?.tokens, reply.usage!.completion_tokens)
  } finally {
    db.close()
  }
})

test('exit codes: 2 without a folder, 1 for no data folder or a destination that is not empty', async () => {
  assert.is((await run(['backup'])).code, 2)
  const notData = await run(['backup', path.join(scratch, 'b2'), '--data', scratch])
  assert.is(notData.code, 1)
  assert.match(notData.stderr, /not a Sluice data folder/)
  fs.mkdirSync(path.join(scratch, 'full'))
  fs.writeFileSync(path.join(scratch, 'full', 'x'), 'x')
  assert.is((await run(['backup', path.join(scratch, 'full'), '--data', gw.dataDir])).code, 1)
  const help = await run(['backup', '--help'])
  assert.is(help.code, 0)
  assert.match(help.stdout, /usage: sluice backup/)
})

test.run()
