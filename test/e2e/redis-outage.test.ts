/**
 * A replica cut from Redis for longer than a lease while requests of its wait in the shared
 * queue: the other replica drops them from the line when their lease ends; when Redis is back
 * each is put back in its place (and served) or refused with 503 and Retry-After at once,
 * never left waiting until the queue timeout. Redis is cut for this replica only, through a
 * TCP proxy the test owns (the shared Redis server keeps serving everyone else).
 */
import * as assert from 'uvu/assert'
import { Redis } from 'ioredis'
import { prepareDeployment } from '../support/gateway.js'
import { keysFile, modelsWith, serverWith } from '../support/deployment-files.js'
import { startReplica, type Replica } from '../support/replica.js'
import { REDIS_URL, uniqueName } from '../support/services.js'
import { suiteNeeding } from '../support/needs-server.js'
import { failIfStuck, until } from '../support/stuck.js'
import { cuttableProxy, type CuttableProxy } from '../support/cuttable-proxy.js'

const test = suiteNeeding(['redis'], 'e2e a replica cut from Redis past its lease')
const LEASE = 1000
const ITL = 50
const prefix = `${uniqueName('sluice-outage')}:`

let proxy: CuttableProxy | undefined
let direct: Replica | undefined
let cutOff: Replica | undefined

test.before(async () => {
  proxy = await cuttableProxy(new URL(REDIS_URL))
  const files = {
    'config/models.yaml': modelsWith({
      backends: { narrow: { url: 'embedded', capacity: 2 } },
      models: [
        {
          id: 'sim-narrow',
          model_type: 'chat',
          backend: 'narrow',
          served_name: 'sim-instruct-8b',
          reported_name: 'sim-narrow',
          context_window: 32768,
        },
      ],
    }),
    'config/keys.yaml': keysFile({}, [{ id: 'tenant', group: 'demo', secret: 'sk-tenant' }]),
    // A queue timeout far past the test: a waiter left in the air would show as a timeout of the test's own.
    'config/server.yaml': serverWith({
      stores: { redis_prefix: prefix, lease_ms: LEASE },
      limits: { request_timeout_ms: 120_000, queue_timeout_ms: 60_000 },
    }),
  }
  const deployment = prepareDeployment({ files, simulatorLatency: { ttft_ms: 0, itl_ms: ITL } })
  const env = { SLUICE_LOG_LEVEL: 'warn' }
  // Each replica a data folder of its own (startReplica's default): two processes on one would
  // share one SQLite file and one record journal, each replaying and deleting the other's segments.
  const { configDir, pipelinesDir } = deployment
  ;[direct, cutOff] = await Promise.all([
    startReplica({ configDir, pipelinesDir, env: { ...env, SLUICE_REDIS_URL: REDIS_URL } }),
    startReplica({ configDir, pipelinesDir, env: { ...env, SLUICE_REDIS_URL: proxy.url } }),
  ])
})

test.after(async () => {
  await direct?.stop()
  await cutOff?.stop()
  await proxy?.close()
  if (!proxy) return
  const redis = new Redis(REDIS_URL)
  const stale = await redis.keys(`${prefix}*`)
  if (stale.length > 0) await redis.del(...stale)
  await redis.quit()
})

const chat = (url: string, tokens: number) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk-tenant', 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'sim-narrow',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: tokens,
      ignore_eos: true,
    }),
  }).then(async (res) => ({
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    at: Date.now(),
    body: await res.text(),
  }))

test('after an outage longer than a lease, every waiter is served or refused at once', async () => {
  const redis = new Redis(REDIS_URL)
  try {
    // The direct replica holds both slots for 2.5 s; three requests of the other wait in line.
    const holders = [chat(direct!.url, 50), chat(direct!.url, 50)]
    await until('the direct replica to hold both slots', async () => (await redis.zcard(`${prefix}q:narrow:run`)) === 2)
    const waiters = [0, 1, 2].map(() => chat(cutOff!.url, 4))
    await until('three waiters in the shared line', async () => (await redis.hlen(`${prefix}q:narrow:waiters`)) === 3)

    // The outage lasts until their leases ran out and the line dropped them: longer than a lease.
    proxy!.cut()
    const cut = Date.now()
    await until(
      'the line to drop the cut-off waiters',
      async () => (await redis.hlen(`${prefix}q:narrow:waiters`)) === 0,
    )
    for (const h of holders) assert.is((await h).status, 200)
    const restored = Date.now()
    proxy!.restore()

    // Answered, not left waiting for the queue timeout (60 s): the guard fails the test at half of it.
    const answers = await failIfStuck(
      Promise.all(waiters),
      'the waiters, after Redis came back (left for their queue timeout?)',
      30_000,
    )
    for (const a of answers)
      assert.ok(
        a.status === 200 || (a.status === 503 && a.retryAfter !== null),
        `served, or refused with Retry-After: ${a.status} ${a.body}`,
      )
    const after = answers.map((a) => a.at - restored)
    process.stdout.write(
      `\n  outage of ${restored - cut} ms (lease ${LEASE} ms): the 3 waiters answered ${answers.map((a) => a.status).join(', ')}, ${after.join(', ')} ms after Redis came back\n`,
    )
  } finally {
    await redis.quit()
  }
})

test.run()
