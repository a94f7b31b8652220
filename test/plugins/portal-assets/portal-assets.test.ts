import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import portalAssets from '../../../plugins/portal-assets/index.js'
import { readBuilt } from '../../../plugins/portal-assets/files.js'
import { loadError, runPlugin, setupPlugin } from '../../../bin/testing/harness.js'

const test = suite('plugin portal-assets')

test('the built page: html, no-cache, a strict CSP (npm run build wrote dist/portal)', async () => {
  const run = await runPlugin(portalAssets, { file: 'index.html' }, { method: 'GET' })
  assert.is(run.reply?.kind, 'bytes')
  assert.is((run.reply as { contentType: string }).contentType, 'text/html; charset=utf-8')
  assert.is(run.ex.headers.get('cache-control'), 'no-cache')
  assert.match(run.ex.headers.get('content-security-policy') ?? '', /default-src 'self'; script-src 'self'/)
  assert.is(run.ex.headers.get('x-content-type-options'), 'nosniff')
})

test('a hashed asset by name: its type and a year of immutable caching', async () => {
  const page = new TextDecoder().decode(
    ((await runPlugin(portalAssets, { file: 'index.html' })).reply as { data: Uint8Array }).data,
  )
  const script = /assets\/(app-[A-Z0-9]{8}\.js)/.exec(page)![1]!
  const run = await runPlugin(portalAssets, {}, { params: { file: script } })
  assert.is((run.reply as { contentType: string }).contentType, 'text/javascript; charset=utf-8')
  assert.is(run.ex.headers.get('cache-control'), 'public, max-age=31536000, immutable')
  assert.not.ok(run.ex.headers.has('content-security-policy'))
})

test('only files that were built: other names, paths and dot-files are 404', async () => {
  for (const file of ['nope.js', '../package.json', '..', '.env', 'index.html/']) {
    const run = await runPlugin(portalAssets, {}, { params: { file } })
    assert.equal([run.error?.status, run.error?.message], [404, `no portal file ${file}`])
  }
})

test('readBuilt: only known types, hashed names marked immutable; a missing folder is empty', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-portal-'))
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html>')
  fs.writeFileSync(path.join(dir, 'app-ABCD1234.js'), '')
  fs.writeFileSync(path.join(dir, 'secrets.env'), 'x')
  const files = readBuilt(dir)
  assert.equal([...files.keys()].sort(), ['app-ABCD1234.js', 'index.html'])
  assert.equal([files.get('index.html')!.immutable, files.get('app-ABCD1234.js')!.immutable], [false, true])
  assert.is(readBuilt(path.join(dir, 'missing')).size, 0)
})

test('a file option that is a path is refused at load', async () => {
  assert.match(await loadError(() => setupPlugin(portalAssets, { file: '../package.json' })), /bad options/)
})

test.run()
