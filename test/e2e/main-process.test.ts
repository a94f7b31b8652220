/**
 * `npm start` as a newcomer runs it: the real process (dist/bin/sluice-server.js) on the embedded
 * defaults, then SIGHUP reload and SIGTERM shutdown with a request in flight.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { defaultConfigDir, defaultPipelinesDir } from '../../kernel/contract/paths.js'
import { openSqliteStore } from '../../kernel/services/stores/sqlite-store.js'
import { startMainProcess } from '../support/main-process.js'
import { failIfStuck } from '../support/stuck.js'

const test = suite('e2e the npm start process')

const start = startMainProcess

test('without SLUICE_DEMO_KEY: a key is printed once, kept hashed, and works; the next start prints none', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-main-'))
  const first = await start({ SLUICE_DATA: data })
  const out = first.stdout()
  assert.match(out, /^Sluice is serving on http:\/\/\S+\n/, 'the banner comes first, in plain lines')
  const key = /Demo API key\s+(sk-sluice-\S+)/.exec(out)?.[1]
  assert.ok(key, 'the key is printed')
  assert.ok(out.includes(`curl -H "Authorization: Bearer ${key}"`), 'a copy-ready command with the key')
  // An admin key is made too: the portal and the admin API are open to it at once.
  const admin = /Admin key\s+(sk-admin-\S+)/.exec(out)?.[1]
  assert.ok(admin, 'the admin key is printed')
  assert.is((await fetch(`${first.url}/admin/keys`, { headers: { authorization: `Bearer ${admin}` } })).status, 200)
  assert.is((await fetch(`${first.url}/`, { redirect: 'manual' })).headers.get('location'), '/portal/')
  const res = await fetch(`${first.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })
  assert.is(res.status, 200)
  const saved = fs.readFileSync(path.join(data, 'demo-key.json'), 'utf8')
  assert.not.ok(saved.includes(key!), 'only the hash is kept')
  assert.match(saved, /sha256:[0-9a-f]{64}/)
  first.child.kill('SIGTERM')
  assert.is(await first.exited, 0)

  const second = await start({ SLUICE_DATA: data })
  assert.not.ok(/sk-sluice-|sk-admin-/.test(second.stdout()), 'not printed again')
  assert.is((await fetch(`${second.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status, 200)
  second.child.kill('SIGTERM')
  await second.exited
})

test('SLUICE_DEMO_KEY is the demo key; SIGHUP reloads pipelines; SIGTERM lets a request in flight finish', async () => {
  const pipelines = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-main-pipes-'))
  for (const f of fs.readdirSync(defaultPipelinesDir))
    fs.copyFileSync(path.join(defaultPipelinesDir, f), path.join(pipelines, f))
  const p = await start({
    SLUICE_DATA: fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-main-')),
    SLUICE_DEMO_KEY: 'sk-mine',
    SLUICE_PIPELINES: pipelines,
  })
  const auth = { authorization: 'Bearer sk-mine' }
  const models = (await (await fetch(`${p.url}/v1/models`, { headers: auth })).json()) as { data: { id: string }[] }
  assert.ok(models.data.some((m) => m.id === 'sim-chat'))

  // The file watcher also reloads; write to a file it does not watch first, then SIGHUP.
  const file = path.join(pipelines, 'gateway.yaml')
  fs.writeFileSync(
    file,
    fs.readFileSync(file, 'utf8') +
      '\n  - id: models-again\n    http: GET /models-again\n    steps: [auth, model-catalog]\n',
  )
  p.child.kill('SIGHUP')
  let status = 404
  for (let i = 0; i < 50 && status !== 200; i++) {
    await new Promise((r) => setTimeout(r, 100))
    status = (await fetch(`${p.url}/v1/models-again`, { headers: auth })).status
  }
  assert.is(status, 200, 'reloaded without a restart')

  // A stream with simulated latency is in flight when SIGTERM arrives.
  const res = await fetch(`${p.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...auth, 'x-sim-itl-ms': '20', 'x-sim-ttft-ms': '0' },
    body: JSON.stringify({
      model: 'sim-chat-instruct',
      messages: [{ role: 'user', content: 'a long story' }],
      stream: true,
      max_tokens: 40,
      ignore_eos: true,
    }),
  })
  // Headers arrived: the stream is in flight on the server when the signal comes.
  p.child.kill('SIGTERM')
  const text = await res.text()
  assert.ok(text.trimEnd().endsWith('data: [DONE]'), 'the request in flight finished')
  assert.is(await p.exited, 0)
})

test('SIGTERM with a stream longer than the grace: the process exits at the grace, cutting the stream, every record flushed', async () => {
  // A config whose grace is one second, and whose keys may slow the simulator down.
  const config = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-main-config-'))
  for (const f of fs.readdirSync(defaultConfigDir))
    if (fs.statSync(path.join(defaultConfigDir, f)).isFile())
      fs.copyFileSync(path.join(defaultConfigDir, f), path.join(config, f))
  const server = path.join(config, 'server.yaml')
  fs.writeFileSync(server, fs.readFileSync(server, 'utf8').replace(/shutdown_grace_ms: \d+/, 'shutdown_grace_ms: 1000'))
  const keys = path.join(config, 'keys.yaml')
  fs.writeFileSync(
    keys,
    fs.readFileSync(keys, 'utf8').replace('    weight: 1\n', '    weight: 1\n    forward_headers: true\n'),
  )
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-main-'))
  const p = await start({ SLUICE_DATA: data, SLUICE_DEMO_KEY: 'sk-mine', SLUICE_CONFIG: config })
  const auth = { authorization: 'Bearer sk-mine' }
  // One quick request, acknowledged before the signal.
  assert.is(
    (
      await fetch(`${p.url}/v1/chat/completions`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          model: 'sim-chat-instruct',
          messages: [{ role: 'user', content: 'hi' }],
          max_tokens: 4,
        }),
      })
    ).status,
    200,
  )
  // A 30-second stream: 300 tokens, 100 ms apart.
  const res = await fetch(`${p.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...auth, 'x-sim-itl-ms': '100', 'x-sim-ttft-ms': '0' },
    body: JSON.stringify({
      model: 'sim-chat-instruct',
      messages: [{ role: 'user', content: 'a very long story' }],
      stream: true,
      max_tokens: 300,
      ignore_eos: true,
    }),
  })
  const reading = res.text().catch(() => 'cut')
  p.child.kill('SIGTERM')
  // Order, not time: the process is gone and the stream was cut before its end (had it waited
  // for the stream, that would have ended with [DONE]). The guard only catches a process that never exits.
  assert.is(await failIfStuck(p.exited, 'the process after SIGTERM', 60_000), 0)
  assert.not.ok((await reading).trimEnd().endsWith('[DONE]'), 'the long stream was cut, not finished')
  // Both requests are in the records the process flushed before it exited.
  const store = openSqliteStore(data)
  const records = await store.records.list({ from: 0, to: Date.now() + 1 }, 10)
  await store.close()
  // The cut stream is recorded as the failure it was (its upstream call ended at the grace: 502).
  assert.equal(records.map((r) => r.status).sort(), [200, 502])
  assert.ok(records.find((r) => r.status === 502)!.completionTokens > 0, 'the cut stream is charged what it streamed')
})

test.run()
