/**
 * The fair-queue contract, run against both implementations: process memory and Redis (where
 * the line is shared by every process). Capacity holds, freed slots go to the least-served
 * group then key (VTC), weights split a busy pool, waits end by timeout or abort, and a slot
 * is kept briefly for a key sending one request after another.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import crypto from 'node:crypto'
import { Redis } from 'ioredis'
import type { Admission, FairQueues, QueueRequest, QueueSlot } from '../../plugins/fair-queue/queues/fair-queues.js'
import { MemoryQueues } from '../../plugins/fair-queue/queues/memory-queues.js'
import { RedisQueues } from '../../plugins/fair-queue/queues/redis-queues.js'
import { createLogger } from '../../kernel/contract/log.js'
import { available, REDIS_URL, uniqueName } from '../support/services.js'

const quiet = createLogger({ level: 'error', sink: { write: () => undefined } })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function request(pool: string, over: Partial<QueueRequest> = {}): QueueRequest {
  return { pool, capacity: 1, model: 'm', group: 'A', groupWeight: 1, key: 'a', cost: 10, timeoutMs: 10_000, signal: new AbortController().signal, anticipationMs: 0, ...over }
}

/** The admission if it came within `ms`, else 'pending'. */
async function within(p: Promise<Admission>, ms = 60): Promise<Admission | 'pending'> {
  return Promise.race([p, sleep(ms).then(() => 'pending' as const)])
}

async function granted(p: Promise<Admission>): Promise<QueueSlot> {
  const a = await p
  if (a.kind !== 'granted') throw new Error(`expected a grant, got ${a.kind}`)
  return a.slot
}

interface Opened {
  queues: FairQueues
  /** A second process on the same state (Redis), or the same queues (memory). */
  other: FairQueues
  close(): Promise<void>
}

function queueContract(label: string, open: () => Promise<Opened | undefined>): void {
  const test = suite(`fair-queue contract: ${label}`)
  let opened: Opened | undefined
  test.before(async () => {
    opened = await open()
  })
  test.after(async () => opened?.close())
  const it = (name: string, fn: (o: Opened, pool: string) => Promise<void>) =>
    test(name, async () => {
      if (opened) await fn(opened, `pool-${crypto.randomBytes(3).toString('hex')}`)
    })

  it('keeps to the capacity; a freed slot goes to the next in line', async ({ queues }, pool) => {
    const first = queues.acquire(request(pool, { capacity: 2 }))
    const second = queues.acquire(request(pool, { capacity: 2 }))
    const third = queues.acquire(request(pool, { capacity: 2 }))
    const s1 = await granted(first)
    await granted(second)
    assert.is(await within(third), 'pending', 'the third waits')
    s1.release(10)
    const s3 = await granted(third)
    s3.release(10)
    s3.release(10) // idempotent: must not free a second slot
  })

  it('a group that floods does not starve another: the freed slot goes to the less-served group', async ({ queues }, pool) => {
    const a1 = await granted(queues.acquire(request(pool, { group: 'A', key: 'a' })))
    const a2 = queues.acquire(request(pool, { group: 'A', key: 'a' }))
    const a3 = queues.acquire(request(pool, { group: 'A', key: 'a' }))
    await sleep(5)
    const b1 = queues.acquire(request(pool, { group: 'B', key: 'b' }))
    await sleep(5)
    a1.release(100)
    const sb = await granted(b1)
    assert.is(await within(a2), 'pending', 'B went first, though A waited longer')
    sb.release(100)
    const s2 = await granted(a2)
    s2.release(100)
    ;(await granted(a3)).release(100)
  })

  it('inside a group, the same between keys', async ({ queues }, pool) => {
    const x1 = await granted(queues.acquire(request(pool, { key: 'x' })))
    const x2 = queues.acquire(request(pool, { key: 'x' }))
    await sleep(5)
    const y1 = queues.acquire(request(pool, { key: 'y' }))
    await sleep(5)
    x1.release(50)
    const sy = await granted(y1)
    assert.is(await within(x2), 'pending')
    sy.release(50)
    ;(await granted(x2)).release(50)
  })

  it('weights split a busy pool: weight 2 gets about twice the slots of weight 1', async ({ queues }, pool) => {
    // Both groups flood a one-slot pool; each request served is charged 100 tokens.
    const ready: { who: string; slot: QueueSlot }[] = []
    let wake: () => void = () => undefined
    const flood = (who: string, weight: number) =>
      Array.from({ length: 20 }, () =>
        granted(queues.acquire(request(pool, { group: who, groupWeight: weight, key: who }))).then((slot) => {
          ready.push({ who, slot })
          wake()
        }),
      )
    const all = [...flood('heavy', 2), ...flood('light', 1)]
    const served: string[] = []
    while (served.length < 40) {
      while (ready.length === 0) await new Promise<void>((r) => (wake = r))
      const next = ready.shift()!
      served.push(next.who)
      next.slot.release(100)
    }
    await Promise.all(all)
    // While both still had requests waiting (the first 24 served), heavy got about two thirds.
    const h = served.slice(0, 24).filter((w) => w === 'heavy').length
    assert.ok(h >= 14 && h <= 18, `heavy served ${h} of the first 24 (expected about 16)`)
  })

  it('fairness is by tokens, not requests: a tenant of long requests gets fewer of them', async ({ queues }, pool) => {
    const ready: { who: string; slot: QueueSlot; size: number }[] = []
    let wake: () => void = () => undefined
    const flood = (who: string, size: number) =>
      Array.from({ length: 30 }, () =>
        granted(queues.acquire(request(pool, { group: who, key: who, cost: size }))).then((slot) => {
          ready.push({ who, slot, size })
          wake()
        }),
      )
    const all = [...flood('long', 1000), ...flood('short', 100)]
    const tokens = { long: 0, short: 0 } as Record<string, number>
    for (let served = 0; served < 60; served++) {
      while (ready.length === 0) await new Promise<void>((r) => (wake = r))
      const next = ready.shift()!
      // Measured while both still wait (the short tenant has 30 requests of 100).
      if (served < 25) tokens[next.who]! += next.size
      next.slot.release(next.size)
    }
    await Promise.all(all)
    const ratio = tokens.long! / tokens.short!
    assert.ok(ratio > 0.5 && ratio < 2, `tokens served long/short ${tokens.long}/${tokens.short}`)
  })

  it('a wait ends at its timeout with `timeout`, and the line goes on', async ({ queues }, pool) => {
    const s1 = await granted(queues.acquire(request(pool)))
    const started = Date.now()
    const late = await queues.acquire(request(pool, { timeoutMs: 80 }))
    assert.is(late.kind, 'timeout')
    assert.ok(Date.now() - started >= 70, 'waited about the timeout')
    const next = queues.acquire(request(pool))
    s1.release(10)
    ;(await granted(next)).release(10)
  })

  it('an abort ends a wait with `aborted`', async ({ queues }, pool) => {
    const s1 = await granted(queues.acquire(request(pool)))
    const controller = new AbortController()
    const waiting = queues.acquire(request(pool, { signal: controller.signal }))
    await sleep(10)
    controller.abort()
    assert.is((await waiting).kind, 'aborted')
    const next = queues.acquire(request(pool))
    s1.release(10)
    ;(await granted(next)).release(10)
  })

  it('anticipation: the slot waits briefly for the least-served key that just freed it', async ({ queues }, pool) => {
    const opts = { anticipationMs: 150 }
    const b1 = await granted(queues.acquire(request(pool, { ...opts, group: 'B', key: 'b' })))
    const a1 = queues.acquire(request(pool, { ...opts, group: 'A', key: 'a', cost: 1000 }))
    await sleep(5)
    b1.release(10)
    assert.is(await within(a1, 40), 'pending', 'the slot is kept for B')
    const b2 = await within(queues.acquire(request(pool, { ...opts, group: 'B', key: 'b' })), 60)
    assert.ok(b2 !== 'pending' && b2.kind === 'granted', 'B, coming back in time, is served at once')
    b2.slot.release(10)
    ;(await granted(a1)).release(10)
  })

  it('anticipation ends: when the key does not come back, the slot goes to the line', async ({ queues }, pool) => {
    const b1 = await granted(queues.acquire(request(pool, { anticipationMs: 50, group: 'B', key: 'b' })))
    const a1 = queues.acquire(request(pool, { anticipationMs: 50, group: 'A', key: 'a', cost: 1000 }))
    await sleep(5)
    const released = Date.now()
    b1.release(10)
    ;(await granted(a1)).release(10)
    const waited = Date.now() - released
    assert.ok(waited >= 40 && waited < 1500, `A got the slot after the hold (${waited} ms)`)
  })

  it('one capacity for every process on the same state', async ({ queues, other }, pool) => {
    const s1 = await granted(queues.acquire(request(pool)))
    const elsewhere = other.acquire(request(pool, { key: 'z' }))
    assert.is(await within(elsewhere), 'pending')
    s1.release(10)
    ;(await granted(elsewhere)).release(10)
  })

  it('slots released together (one event-loop turn) each go to the next in line, none twice', async ({ queues }, pool) => {
    const slots = await Promise.all(Array.from({ length: 4 }, () => granted(queues.acquire(request(pool, { capacity: 4 })))))
    const waiting = Array.from({ length: 6 }, () => queues.acquire(request(pool, { capacity: 4 })))
    assert.is(await within(waiting[0]!), 'pending', 'the pool is full')
    for (const s of slots) s.release(10)
    const next = await Promise.all(waiting.slice(0, 4).map(granted))
    assert.is(await within(waiting[4]!), 'pending', 'four freed slots, four grants: the fifth still waits')
    for (const s of next) s.release(10)
    for (const w of waiting.slice(4)) (await granted(w)).release(10)
  })

  it('load counts waiting and running per pool and model', async ({ queues }, pool) => {
    const s1 = await granted(queues.acquire(request(pool, { model: 'm1' })))
    const w = queues.acquire(request(pool, { model: 'm2' }))
    await sleep(10)
    const load = queues.load().filter((l) => l.pool === pool)
    assert.equal(load.find((l) => l.model === 'm1'), { pool, model: 'm1', waiting: 0, running: 1 })
    assert.equal(load.find((l) => l.model === 'm2'), { pool, model: 'm2', waiting: 1, running: 0 })
    s1.release(10)
    ;(await granted(w)).release(10)
  })

  test.run()
}

queueContract('memory', async () => {
  const queues = new MemoryQueues()
  return { queues, other: queues, close: async () => queues.close() }
})

queueContract('redis', async () => {
  if (!(await available('redis'))) return undefined
  const prefix = `${uniqueName('sluice-test')}:`
  const clients = [new Redis(REDIS_URL), new Redis(REDIS_URL), new Redis(REDIS_URL), new Redis(REDIS_URL)]
  const queues = await RedisQueues.open(clients[0]!, clients[1]!, { prefix, log: quiet })
  const other = await RedisQueues.open(clients[2]!, clients[3]!, { prefix, log: quiet })
  return {
    queues,
    other,
    async close() {
      await queues.close()
      await other.close()
      const keys = await clients[0]!.keys(`${prefix}*`)
      if (keys.length > 0) await clients[0]!.del(...keys)
      for (const c of clients) await c.quit()
    },
  }
})

const replicas = suite('fair-queue across replicas (Redis only)')
replicas('a replica that stops renewing its leases (a crash) gives its slots back when they run out', async () => {
  if (!(await available('redis'))) return
  const prefix = `${uniqueName('sluice-test')}:`
  const clients = [new Redis(REDIS_URL), new Redis(REDIS_URL), new Redis(REDIS_URL), new Redis(REDIS_URL)]
  // The first "replica" never renews (its heartbeat is a minute away): as if it had died.
  const dying = await RedisQueues.open(clients[0]!, clients[1]!, { prefix, log: quiet, leaseMs: 300, heartbeatMs: 60_000 })
  const alive = await RedisQueues.open(clients[2]!, clients[3]!, { prefix, log: quiet, leaseMs: 5_000, heartbeatMs: 100 })
  try {
    const pool = 'crash'
    await granted(dying.acquire(request(pool)))
    const started = Date.now()
    const waiting = alive.acquire(request(pool, { key: 'survivor' }))
    assert.is(await within(waiting, 150), 'pending', 'the slot is still leased')
    ;(await granted(waiting)).release(10)
    const waited = Date.now() - started
    assert.ok(waited >= 250 && waited < 2000, `the slot came back after its lease (${waited} ms)`)
  } finally {
    await dying.close()
    await alive.close()
    const keys = await clients[0]!.keys(`${prefix}*`)
    if (keys.length > 0) await clients[0]!.del(...keys)
    for (const c of clients) await c.quit()
  }
})

/** Two RedisQueues on one fresh prefix, with their own lease and heartbeat; closed and cleaned by `run`. */
async function twoReplicas(a: { leaseMs: number; heartbeatMs: number }, b: { leaseMs: number; heartbeatMs: number }, run: (a: RedisQueues, b: RedisQueues) => Promise<void>): Promise<void> {
  if (!(await available('redis'))) return
  const prefix = `${uniqueName('sluice-test')}:`
  const clients = [new Redis(REDIS_URL), new Redis(REDIS_URL), new Redis(REDIS_URL), new Redis(REDIS_URL)]
  const first = await RedisQueues.open(clients[0]!, clients[1]!, { prefix, log: quiet, ...a })
  const second = await RedisQueues.open(clients[2]!, clients[3]!, { prefix, log: quiet, ...b })
  try {
    await run(first, second)
  } finally {
    await first.close()
    await second.close()
    const keys = await clients[0]!.keys(`${prefix}*`)
    if (keys.length > 0) await clients[0]!.del(...keys)
    for (const c of clients) await c.quit()
  }
}

replicas("a dead replica's waiter granted just before its lease ends keeps the slot only until that lease, not a fresh one", async () => {
  // The dead one never renews; the slot it is granted at ~450 ms must come back at ~600 ms (its
  // waiter's lease), not at ~1,050 ms (a fresh lease from the grant).
  await twoReplicas({ leaseMs: 600, heartbeatMs: 60_000 }, { leaseMs: 5_000, heartbeatMs: 50 }, async (dying, alive) => {
    const pool = 'late-grant'
    const held = await granted(alive.acquire(request(pool)))
    const started = Date.now()
    void dying.acquire(request(pool, { key: 'dead' }))
    await sleep(450)
    held.release(10)
    await sleep(30)
    const again = alive.acquire(request(pool, { key: 'survivor' }))
    assert.is(await within(again, 60), 'pending', 'the dead waiter was granted the freed slot')
    ;(await granted(again)).release(10)
    const back = Date.now() - started
    assert.ok(back >= 550 && back < 900, `the slot came back ${back} ms after the dead replica's last heartbeat`)
  })
})

replicas('a waiter dropped while its replica was cut from Redis past its lease goes back to its old place', async () => {
  // `cut` renews nothing for 700 ms (as if cut off), so its waiter lapses at 300 ms and the other
  // replica's heartbeat drops it; its first heartbeat after that puts it back ahead of a later one.
  await twoReplicas({ leaseMs: 300, heartbeatMs: 700 }, { leaseMs: 5_000, heartbeatMs: 50 }, async (cut, alive) => {
    const pool = 'requeue'
    const held = await granted(alive.acquire(request(pool)))
    const early = cut.acquire(request(pool, { key: 'k' }))
    await sleep(20)
    const late = alive.acquire(request(pool, { key: 'k' }))
    await sleep(850)
    held.release(10)
    const first = await Promise.race([early.then(() => 'early'), late.then(() => 'late'), sleep(1000).then(() => 'neither')])
    assert.is(first, 'early', 'the older waiter is served first')
    ;(await granted(early)).release(10)
    ;(await granted(late)).release(10)
  })
})

replicas.run()
