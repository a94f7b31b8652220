/**
 * `sluice-kb load` end to end: the compiled CLI as a child process against a real gateway
 * (the real embedding model behind the knowledge API). Output is never a TTY here, so the
 * plain one-line-per-file form is what the assertions read.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { repoRoot } from '../../kernel/contract/paths.js'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'

const test = suite('e2e kb CLI')
const ADMIN = 'sk-admin-kb-cli'
const CLI = path.join(repoRoot, 'dist', 'bin', 'sluice-kb.js')
let gw: TestGateway
let folder: string

test.before(async () => {
  gw = await startTestGateway({ env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN } })
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-kb-cli-'))
  const files: Record<string, string> = {
    'garden.md': '# Gardening\n\n## Roses\nPrune roses in late winter, above an outward-facing bud.\n',
    'guides/sky.html':
      '<html><body><h1>Astronomy</h1><p>Jupiter is the largest planet of the solar system.</p></body></html>',
    'guides/deep/notes.txt': 'Bread rises because yeast turns sugar into carbon dioxide.\n',
    'data.csv': 'a,b\n1,2\n',
  }
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(folder, name)), { recursive: true })
    fs.writeFileSync(path.join(folder, name), text)
  }
})
test.after(async () => {
  await gw.close()
  fs.rmSync(folder, { recursive: true, force: true })
})

interface Run {
  code: number
  stdout: string
  stderr: string
}

function run(args: string[], env: Record<string, string> = { SLUICE_ADMIN_KEY: ADMIN }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env } },
      (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
      },
    )
  })
}

const load = (...extra: string[]): Promise<Run> =>
  run(['load', folder, '--project', 'acme', '--collection', 'handbook', '--url', gw.url, ...extra])

async function sourceNames(): Promise<string[]> {
  const res = await fetch(`${gw.url}/knowledge/v1/projects/acme/collections/handbook/documents`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  })
  const body = (await res.json()) as { data: { source_name: string }[] }
  return body.data.map((d) => d.source_name)
}

const EXPECTED = ['garden.md', 'guides/deep/notes.txt', 'guides/sky.html']

test('a missing collection without --create stops the run with exit 1', async () => {
  const r = await load()
  assert.is(r.code, 1, r.stdout + r.stderr)
  assert.match(r.stderr, /collection "handbook" does not exist .*--create/)
})

test('--create then loads every supported file; the unsupported one is listed as skipped', async () => {
  const r = await load('--create', '--concurrency', '2', '--tags', 'handbook,v1')
  assert.is(r.code, 0, r.stdout + r.stderr)
  assert.match(r.stdout, /created collection handbook/)
  assert.match(r.stdout, /\[3\/3\] /)
  assert.match(r.stdout, /skipped data\.csv: unsupported format \(\.csv\)/)
  assert.match(r.stdout, /^summary: 3 loaded, 0 replaced, 1 skipped, 0 failed; \d+ chunks in /m)
  assert.not.match(r.stdout, /\r/)
  assert.equal(await sourceNames(), EXPECTED)
})

test('a second run replaces the same documents: no duplicates', async () => {
  const r = await load()
  assert.is(r.code, 0, r.stdout + r.stderr)
  assert.match(r.stdout, /^summary: 0 loaded, 3 replaced, 1 skipped, 0 failed/m)
  assert.equal(await sourceNames(), EXPECTED)
})

test('a broken PDF fails alone: exit 1, named with its reason, the others still load', async () => {
  fs.writeFileSync(path.join(folder, 'broken.pdf'), '%PDF-1.7 this is not really a PDF')
  try {
    const r = await load()
    assert.is(r.code, 1, r.stdout + r.stderr)
    assert.match(r.stdout, /^failed broken\.pdf: 400 the PDF could not be read/m)
    assert.match(r.stdout, /^summary: 0 loaded, 3 replaced, 1 skipped, 1 failed/m)
    assert.equal(await sourceNames(), EXPECTED)
  } finally {
    fs.rmSync(path.join(folder, 'broken.pdf'))
  }
})

test('--dry-run lists the plan and sends nothing', async () => {
  const r = await run(['load', folder, '--project', 'acme', '--collection', 'other', '--url', gw.url, '--dry-run'], {})
  assert.is(r.code, 0, r.stdout + r.stderr)
  assert.match(r.stdout, /would load guides\/sky\.html/)
  assert.match(r.stdout, /dry run: 3 to load, 1 skipped/)
})

test('bad usage exits 2 with the usage text on stderr', async () => {
  for (const args of [
    [],
    ['load'],
    ['fetch', folder],
    ['load', folder, '--project', 'acme'],
    ['load', folder, '--project', 'acme', '--collection', 'c', '--concurrency', '0'],
    ['load', folder, '--project', 'acme', '--collection', 'c', '--bogus'],
    ['load', path.join(folder, 'nope'), '--project', 'acme', '--collection', 'c'],
  ]) {
    const r = await run(args)
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`)
    assert.match(r.stderr, /usage: sluice-kb load/)
    assert.is(r.stdout, '')
  }
  const noKey = await run(['load', folder, '--project', 'acme', '--collection', 'handbook', '--url', gw.url], {})
  assert.is(noKey.code, 2)
  assert.match(noKey.stderr, /SLUICE_ADMIN_KEY is not set/)
})

test.run()
