/**
 * The Kubernetes probes: /healthz and /readyz answer 200 on the default deployment, without a
 * key; /readyz answers 503 naming Redis once the gateway's Redis is cut (through a TCP proxy
 * the test owns, so the shared Redis keeps serving everyone else), and 200 again when it is back.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import net from 'node:net'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { serverWith } from '../support/deployment-files.js'
import { available, REDIS_URL, uniqueName } from '../support/services.js'

const test = suite('e2e probes')

interface Readiness {
  status: string
  checks: Record<string, { ok: boolean; error?: string }>
}

/** A TCP proxy to Redis whose connections can all be cut, and new ones refused, then allowed again. */
async function cuttableProxy(target: URL) {
  const sockets = new Set<net.Socket>()
  let cut = false
  const server = net.createServer((client) => {
    if (cut) return void client.destroy()
    const upstream = net.connect(Number(target.port || 6379), target.hostname)
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('error', () => undefined)
      s.on('close', () => {
        sockets.delete(s)
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `redis://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut() {
      cut = true
      for (const s of sockets) s.destroy()
    },
    restore() {
      cut = false
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

async function readyz(gateway: TestGateway): Promise<{ status: number; body: Readiness }> {
  const res = await fetch(`${gateway.url}/readyz`)
  return { status: res.status, body: (await res.json()) as Readiness }
}

test('both probes answer 200 without a key on the default deployment', async () => {
  const gateway = await startTestGateway()
  try {
    const live = await fetch(`${gateway.url}/healthz`)
    assert.is(live.status, 200)
    assert.equal(await live.json(), { status: 'ok' })
    const ready = await readyz(gateway)
    assert.is(ready.status, 200, JSON.stringify(ready.body))
    assert.is(ready.body.status, 'ok')
    for (const name of ['records', 'knowledge', 'backends']) assert.ok(ready.body.checks[name]?.ok, name)
    assert.not.ok('redis' in ready.body.checks, 'no Redis check without Redis')
  } finally {
    await gateway.close()
  }
})

test('readyz answers 503 naming Redis while Redis is cut, 200 once it is back', async () => {
  if (!(await available('redis'))) return
  const proxy = await cuttableProxy(new URL(REDIS_URL))
  const gateway = await startTestGateway({
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_REDIS_URL: proxy.url },
    files: { 'config/server.yaml': serverWith({ stores: { redis_prefix: `${uniqueName('sluice-probe')}:` } }) },
  })
  try {
    const before = await readyz(gateway)
    assert.is(before.status, 200, JSON.stringify(before.body))
    assert.ok(before.body.checks.redis?.ok)

    proxy.cut()
    const started = Date.now()
    const during = await readyz(gateway)
    assert.ok(Date.now() - started < 5000, 'the probe answers within its bounded wait')
    assert.is(during.status, 503)
    assert.is(during.body.status, 'unready')
    assert.is(during.body.checks.redis?.ok, false)
    assert.type(during.body.checks.redis?.error, 'string')
    assert.ok(during.body.checks.records?.ok, 'the other checks still pass')

    // ioredis reconnects on its own (at most 2 s apart); the probe follows.
    proxy.restore()
    let after = await readyz(gateway)
    for (let i = 0; i < 40 && after.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 250))
      after = await readyz(gateway)
    }
    assert.is(after.status, 200, JSON.stringify(after.body))
  } finally {
    await gateway.close()
    await proxy.close()
  }
})

test.run()
