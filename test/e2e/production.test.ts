/**
 * The production path: the built files run with `node`, without devDependencies.
 * 1. No file of dist/ that the server or the CLI can load (everything but dist/test and
 *    dist/bench) imports a package that is not a dependency.
 * 2. package.json, the lock file, dist/, config/ and pipelines/ copied into an empty folder,
 *    `npm ci --omit=dev --prefer-offline` there, then `node dist/bin/sluice-server.js`: /readyz
 *    answers 200 and a chat request is served by the embedded simulator, whose access-log line
 *    is on stdout (the shipped default) after a graceful stop; `sluice config check` passes, and
 *    `npm run sluice` and `npm run kb` run from the built files without rebuilding. Install scripts are skipped there and better-sqlite3's compiled addon is copied
 *    from this checkout (the same version, built for this Node): compiling SQLite again would
 *    take minutes and proves nothing about which packages the code imports.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { builtinModules } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { repoRoot } from '../../kernel/contract/paths.js'

const test = suite('e2e production path (node on dist/, no devDependencies)')
const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
}
const DEMO_KEY = 'sk-production-path-demo'

function jsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    if (e.isDirectory())
      return p === path.join(repoRoot, 'dist', 'test') || p === path.join(repoRoot, 'dist', 'bench') ? [] : jsFiles(p)
    return e.name.endsWith('.js') ? [p] : []
  })
}

const packageOf = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!)

test('no runtime file of dist/ imports a devDependency', () => {
  const builtins = new Set(builtinModules)
  const found = new Map<string, string>()
  for (const file of jsFiles(path.join(repoRoot, 'dist'))) {
    const text = fs.readFileSync(file, 'utf8')
    // A bare specifier: a package name (scoped or not), perhaps with a subpath.
    for (const m of text.matchAll(
      /(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+|\brequire\s*\(\s*)['"]((?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*(?:\/[^'"\s]*)?)['"]/gm,
    )) {
      const spec = m[1]!
      if (spec.startsWith('.') || spec.startsWith('node:') || builtins.has(spec)) continue
      found.set(packageOf(spec), path.relative(repoRoot, file))
    }
  }
  assert.ok(found.size > 10, 'the scan sees the imports')
  for (const [name, file] of found)
    assert.ok(name in pkg.dependencies, `${file} imports ${name}, which is not a dependency`)
})

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { cwd, timeout: 600_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NODE_ENV: 'production' } },
      (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
      },
    )
  })
}

/** Starts the server; resolves with its URL once it prints the line saying where it serves. */
function startServer(dir: string): Promise<{ child: ChildProcess; url: string; stdout: () => string }> {
  const child = spawn(process.execPath, ['dist/bin/sluice-server.js'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      HOST: '127.0.0.1',
      SLUICE_DATA: path.join(dir, 'data'),
      SLUICE_DEMO_KEY: DEMO_KEY,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()))
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString()
      const m = /serving on (http:\/\/\S+)/.exec(out)
      if (m) resolve({ child, url: m[1]!, stdout: () => out })
    })
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${err.slice(-2000)}`)))
  })
}

test('npm ci --omit=dev in an empty folder, then node dist/bin/sluice-server.js: ready, and a chat request served', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-prod-'))
  let child: ChildProcess | undefined
  try {
    for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(repoRoot, f), path.join(dir, f))
    for (const d of ['dist', 'config', 'pipelines'])
      fs.cpSync(path.join(repoRoot, d), path.join(dir, d), { recursive: true })
    const install = await run(
      'npm',
      ['ci', '--omit=dev', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'],
      dir,
    )
    assert.is(install.code, 0, `npm ci failed: ${install.stderr.slice(-2000)}`)
    for (const dev of ['typescript', 'uvu', 'openai', 'ai', 'json-schema-to-ts', 'parse-prometheus-text-format']) {
      assert.not.ok(fs.existsSync(path.join(dir, 'node_modules', dev)), `${dev} (a devDependency) is not installed`)
    }
    fs.cpSync(
      path.join(repoRoot, 'node_modules', 'better-sqlite3', 'build'),
      path.join(dir, 'node_modules', 'better-sqlite3', 'build'),
      { recursive: true },
    )

    const check = await run(process.execPath, ['dist/bin/sluice.js', 'config', 'check'], dir)
    assert.is(check.code, 0, `config check: ${check.stdout}${check.stderr}`)
    // The npm commands run from the built files there too: no rebuild (no TypeScript, no sources).
    const viaNpm = await run('npm', ['run', '--silent', 'sluice', '--', 'config', 'check'], dir)
    assert.is(viaNpm.code, 0, `npm run sluice: ${viaNpm.stdout}${viaNpm.stderr}`)
    const kb = await run('npm', ['run', '--silent', 'kb', '--', '--help'], dir)
    assert.is(kb.code, 0, `npm run kb: ${kb.stdout}${kb.stderr}`)
    assert.match(kb.stdout, /usage/i)

    const started = await startServer(dir)
    child = started.child
    // Ready once the first start's sample collection is in (503 until then), as an orchestrator waits.
    let ready = await fetch(`${started.url}/readyz`)
    for (let i = 0; i < 600 && ready.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 100))
      ready = await fetch(`${started.url}/readyz`)
    }
    assert.is(ready.status, 200, await ready.text())
    const res = await fetch(`${started.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'sim-chat-instruct',
        messages: [{ role: 'user', content: 'hello' }],
        max_tokens: 5,
      }),
    })
    assert.is(res.status, 200)
    const body = (await res.json()) as {
      choices: { message: { content: string } }[]
      usage: { completion_tokens: number }
    }
    assert.ok(body.choices[0]!.message.content.length > 0)
    assert.ok(body.usage.completion_tokens > 0)
    const requestId = res.headers.get('x-gateway-request-id')

    // A graceful stop writes the access log's last batch: the shipped default is stdout.
    const exited = new Promise((resolve) => child!.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
    const line = started
      .stdout()
      .split('\n')
      .find((l) => l.includes(`"request_id":"${requestId}"`))
    assert.ok(line, 'the chat request has an access-log line on stdout')
    const entry = JSON.parse(line) as { route: string; status: number; key_id: string; tokens_out: number }
    assert.equal(
      [entry.route, entry.status, entry.key_id, entry.tokens_out],
      ['chat', 200, 'demo', body.usage.completion_tokens],
    )
    assert.not.ok(started.stdout().includes(DEMO_KEY), 'no secret on stdout')
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
