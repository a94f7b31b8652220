/**
 * `sluice` end to end: the compiled CLI as a child process against a real gateway's admin API
 * (keys, usage), `config check` on the shipped and on a broken deployment, and the exit codes
 * scripts rely on (0 ok, 1 failed, 2 usage, 3 unreachable).
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { defaultPipelinesDir, repoRoot } from '../../kernel/contract/paths.js'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'

const test = suite('e2e sluice CLI')
const ADMIN = 'sk-admin-sluice-cli'
const CLI = path.join(repoRoot, 'dist', 'bin', 'sluice.js')
let gw: TestGateway
let broken: string

test.before(async () => {
  gw = await startTestGateway({ env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN } })
  broken = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-cli-'))
  fs.cpSync(defaultPipelinesDir, broken, { recursive: true })
  const admin = path.join(broken, 'admin.yaml')
  fs.writeFileSync(
    admin,
    fs.readFileSync(admin, 'utf8').replace('{ admin-keys: { action: list } }', '{ no-such-plugin: {} }'),
  )
})
test.after(async () => {
  await gw.close()
  fs.rmSync(broken, { recursive: true, force: true })
})

interface Run {
  code: number
  stdout: string
  stderr: string
}

function run(
  args: string[],
  env: Record<string, string> = { SLUICE_ADMIN_KEY: ADMIN, SLUICE_URL: gw.url },
): Promise<Run> {
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

const models = (secret: string): Promise<number> =>
  fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } }).then((r) => r.status)
const secretOf = (r: Run): string => /secret: (\S+)/.exec(r.stdout)?.[1] ?? ''

test('keys: create, disable, enable, rotate, list, delete', async () => {
  const made = await run(['keys', 'create', '--group', 'demo', '--id', 'cli-one', '--budget', '5', '--tpm', '10000'])
  assert.is(made.code, 0, made.stderr)
  const secret = secretOf(made)
  assert.match(secret, /^sk-sluice-/)
  assert.is(await models(secret), 200)

  assert.is((await run(['keys', 'disable', 'cli-one'])).code, 0)
  assert.is(await models(secret), 403)
  assert.is((await run(['keys', 'enable', 'cli-one'])).code, 0)
  assert.is(await models(secret), 200)

  const rotated = await run(['keys', 'rotate', 'cli-one'])
  assert.is(rotated.code, 0, rotated.stderr)
  const fresh = secretOf(rotated)
  assert.is.not(fresh, secret)
  assert.is(await models(secret), 401)
  assert.is(await models(fresh), 200)

  const list = await run(['keys', 'list'])
  assert.is(list.code, 0)
  const [header, ...rows] = list.stdout.trimEnd().split('\n')
  assert.equal(header.split(/\s+/), ['id', 'group', 'enabled', 'budget', 'expires', 'models', 'rpm', 'source'])
  assert.ok(
    rows.some((r) => r.split(/\s+/).join(' ') === 'cli-one demo true 5/month - - - store'),
    list.stdout,
  )
  assert.ok(!list.stdout.includes(fresh), 'never a secret')

  assert.is((await run(['keys', 'delete', 'cli-one'])).code, 2, 'delete needs --yes')
  assert.is((await run(['keys', 'delete', 'cli-one', '--yes'])).code, 0)
  assert.is(await models(fresh), 401)
  assert.not.ok((await run(['keys', 'list'])).stdout.includes('cli-one'))
})

test("keys: create and set a key's expiry, own models and requests per minute; none clears; bad values exit 1 with the gateway's message", async () => {
  const made = await run([
    'keys',
    'create',
    '--group',
    'demo',
    '--id',
    'cli-limits',
    '--expires',
    '2099-01-01T00:00:00Z',
    '--models',
    'sim-vision, sim-chat',
    '--rpm',
    '1',
  ])
  assert.is(made.code, 0, made.stderr)
  const secret = secretOf(made)
  assert.is(await models(secret), 200)
  assert.is(await models(secret), 429, 'one request a minute')
  const row = (await run(['keys', 'list'])).stdout.split('\n').find((r) => r.startsWith('cli-limits'))
  assert.is(row?.split(/\s+/).join(' '), 'cli-limits demo true - 2099-01-01T00:00:00.000Z sim-vision,sim-chat 1 store')

  const set = await run([
    'keys',
    'set',
    'cli-limits',
    '--rpm',
    'none',
    '--models',
    'sim-vision',
    '--expires',
    '4102444800000',
  ])
  assert.is(set.code, 0, set.stderr)
  assert.is(
    set.stdout,
    'key cli-limits: expires 2100-01-01T00:00:00.000Z; models sim-vision; no limit of requests per minute\n',
  )
  assert.is(await models(secret), 200, 'the limit is gone')
  const json = JSON.parse(
    (await run(['keys', 'set', 'cli-limits', '--expires', 'none', '--models', 'none', '--json'])).stdout,
  )
  assert.equal([json.expires_at, json.models, json.requests_per_minute], [null, null, null])

  const past = await run(['keys', 'set', 'cli-limits', '--expires', '2001-01-01T00:00:00Z'])
  assert.is(past.code, 1)
  assert.match(past.stderr, /400: invalid request: expires_at 2001-01-01T00:00:00Z is in the past/)
  const outside = await run(['keys', 'create', '--group', 'demo', '--models', 'gpt-9'])
  assert.is(outside.code, 1)
  assert.match(outside.stderr, /400: invalid request: models: gpt-9 is not a model or family of the catalog/)
  const zero = await run(['keys', 'set', 'cli-limits', '--rpm', '0'])
  assert.is(zero.code, 1)
  assert.match(zero.stderr, /400: invalid request: \/requests_per_minute/)
  assert.is((await run(['keys', 'set', 'cli-limits'])).code, 2, 'set needs a field')
  assert.is((await run(['keys', 'set', 'cli-limits', '--rpm', 'many'])).code, 2)
})

test('an HTTP error: exit 1 with the API message', async () => {
  const missing = await run(['keys', 'disable', 'nobody'])
  assert.is(missing.code, 1)
  assert.match(missing.stderr, /404: key nobody does not exist/)
  const wrongKey = await run(['keys', 'list'], { SLUICE_ADMIN_KEY: 'sk-wrong', SLUICE_URL: gw.url })
  assert.is(wrongKey.code, 1)
  assert.match(wrongKey.stderr, /401/)
})

test('usage: a row after a request; --json', async () => {
  const made = await run(['keys', 'create', '--group', 'demo', '--id', 'cli-usage'])
  const reply = await gw.openai(secretOf(made)).chat.completions.create({
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'hello' }],
    max_tokens: 5,
  })
  assert.is(reply.object, 'chat.completion')
  let table = ''
  // Records are written behind the reply: wait for the row a little.
  for (let i = 0; i < 50 && !table.includes('cli-usage'); i++) {
    const r = await run(['usage', '--by', 'key', '--key', 'cli-usage'])
    assert.is(r.code, 0, r.stderr)
    table = r.stdout
    if (!table.includes('cli-usage')) await new Promise((res) => setTimeout(res, 100))
  }
  const row = table.split('\n').find((l) => l.startsWith('cli-usage'))
  assert.ok(row, table)
  assert.is(row!.trim().split(/\s+/)[1], '1', 'one request')
  const json = await run(['usage', '--by', 'model', '--key', 'cli-usage', '--json'])
  assert.is(json.code, 0)
  const body = JSON.parse(json.stdout) as { data: { model: string; requests: number }[] }
  assert.ok(
    body.data.some((r) => r.requests === 1),
    json.stdout,
  )
})

test('config check: the shipped config passes; a broken pipeline names the file and the step', async () => {
  const ok = await run(['config', 'check'], {})
  assert.is(ok.code, 0, ok.stderr)
  const bad = await run(['config', 'check', '--pipelines', broken], {})
  assert.is(bad.code, 1)
  assert.ok(bad.stderr.includes(path.join(broken, 'admin.yaml')), bad.stderr)
  assert.match(bad.stderr, /route admin-keys-list: step 2 \(no-such-plugin\): unknown plugin 'no-such-plugin'/)
  assert.match(bad.stderr, /\[UNKNOWN_PLUGIN\]/)
})

test('exit codes: usage errors 2, unreachable 3, help 0', async () => {
  assert.is((await run(['frobnicate'])).code, 2)
  assert.is((await run(['keys', 'list', '--colour', 'red'])).code, 2)
  assert.is((await run(['keys', 'create'])).code, 2, 'missing --group')
  assert.is((await run(['keys', 'list'], { SLUICE_URL: gw.url })).code, 2, 'no admin key')
  const port = await closedPort()
  const down = await run(['keys', 'list', '--url', `http://127.0.0.1:${port}`])
  assert.is(down.code, 3)
  assert.match(down.stderr, /cannot reach the gateway/)
  for (const args of [
    ['--help'],
    ['keys', '--help'],
    ['usage', '--help'],
    ['config', '--help'],
    ['ingest', '--help'],
  ]) {
    const help = await run(args)
    assert.is(help.code, 0, args.join(' '))
    assert.match(help.stdout, /^usage: sluice/)
  }
})

test('ingest: the kb loader (a dry run lists what it would load)', async () => {
  fs.writeFileSync(path.join(broken, 'notes.md'), '# Notes\n')
  const dry = await run(['ingest', broken, '--project', 'acme', '--collection', 'cli', '--dry-run'])
  assert.is(dry.code, 0, dry.stderr)
  assert.match(dry.stdout, /would load notes\.md/)
  assert.is((await run(['ingest', broken, '--project', 'acme'])).code, 2, 'missing --collection')
})

/** A port nothing listens on: one the OS handed out, then closed. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

test.run()
