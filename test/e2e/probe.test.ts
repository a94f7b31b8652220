/**
 * The Kubernetes probes: /healthz and /readyz answer 200 on the default deployment, without a
 * key; /readyz answers 503 naming Redis once the gateway's Redis is cut (through a TCP proxy
 * the test owns, so the shared Redis keeps serving everyone else), and 200 again when it is back.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { serverWith } from '../support/deployment-files.js'
import { REDIS_URL, uniqueName } from '../support/services.js'
import { suiteNeeding } from '../support/needs-server.js'
import { failIfStuck } from '../support/stuck.js'
import { cuttableProxy } from '../support/cuttable-proxy.js'

const test = suite('e2e probes')

interface Readiness {
  status: string
  checks: Record<string, { ok: boolean; error?: string }>
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

test.run()

const withRedis = suiteNeeding(['redis'], 'e2e probes with Redis')

withRedis('readyz answers 503 naming Redis while Redis is cut, 200 once it is back', async () => {
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
    // Its wait on Redis is bounded: it answers (the guard only catches a probe that hangs).
    const during = await failIfStuck(readyz(gateway), 'readyz while Redis is cut')
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

withRedis.run()
