/**
 * The fair-queue contract, run against both implementations: process memory and Redis (where
 * the line is shared by every process). Capacity holds, freed slots go to the least-served
 * group then key (VTC), weights split a busy pool, waits end by timeout or abort, and a slot
 * is kept briefly for a key sending one request after another.
 */
import * as assert from 'uvu/assert'
import crypto from 'node:crypto'
import { Redis } from 'ioredis'
import type { Admission, FairQueues, QueueRequest, QueueSlot } from '../../plugins/fair-queue/queues/fair-queues.js'
import { MemoryQueues } from '../../plugins/fair-queue/queues/memory-queues.js'
import { RedisQueues } from '../../plugins/fair-queue/queues/redis-queues.js'
import { RedisTurn } from '../../kernel/services/redis/redis-turn.js'
import { createLogger } from '../../kernel/contract/log.js'
import { REDIS_URL, uniqueName, type Server } from '../support/services.js'
import { suiteNeeding } from '../support/needs-server.js'
import { failIfStuck } from '../support/stuck.js'

const quiet = createLogger({ level: 'error', sink: { write: () => undefined } })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function request(pool: string, over: Partial<QueueRequest> = {}): QueueRequest {
  return {
    pool,
    capacity: 1,
    model: 'm',
    group: 'A',
    groupWeight: 1,
    key: 'a',
    cost: 10,
    timeoutMs: 10_000,
    signal: new AbortController().signal,
    anticipationMs: 0,
    ...over,
  }
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

function queueContract(label: string, needs: readonly Server[], open: () => Promise<Opened>): void {
  const test = suiteNeeding(needs, `fair-queue contract: ${label}`)
  let opened: Opened | undefined
  test.before(async () => {
    opened = await open()
  })
  test.after(async () => opened?.close())
  const it = (name: string, fn: (o: Opened, pool: string) => Promise<void>) =>
    test(name, () => fn(opened!, `pool-${crypto.randomBytes(3).toString('hex')}`))

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

  it('a group that floods does not starve another: the freed slot goes to the less-served group', async ({
    queues,
  }, pool) => {
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
    const waiting = queues.acquire(request(pool, { timeoutMs: 80 }))
    assert.is(await within(waiting, 20), 'pending', 'it waits until its timeout')
    const late = await waiting
    assert.is(late.kind, 'timeout')
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
    b1.release(10)
    assert.is(await within(a1, 20), 'pending', 'the slot is held for B a moment')
    ;(await failIfStuck(granted(a1), 'A, once the hold for B is over')).release(10)
  })

  it('one capacity for every process on the same state', async ({ queues, other }, pool) => {
    const s1 = await granted(queues.acquire(request(pool)))
    const elsewhere = other.acquire(request(pool, { key: 'z' }))
    assert.is(await within(elsewhere), 'pending')
    s1.release(10)
    ;(await granted(elsewhere)).release(10)
  })

  it('slots released together (one event-loop turn) each go to the next in line, none twice', async ({
    queues,
  }, pool) => {
    const slots = await Promise.all(
      Array.from({ length: 4 }, () => granted(queues.acquire(request(pool, { capacity: 4 })))),
    )
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
    assert.equal(
      load.find((l) => l.model === 'm1'),
      { pool, model: 'm1', waiting: 0, running: 1 },
    )
    assert.equal(
      load.find((l) => l.model === 'm2'),
      { pool, model: 'm2', waiting: 1, running: 0 },
    )
    s1.release(10)
    ;(await granted(w)).release(10)
  })

  test.run()
}

queueContract('memory', [], async () => {
  const queues = new MemoryQueues()
  return { queues, other: queues, close: async () => queues.close() }
})

queueContract('redis', ['redis'], async () => {
  const prefix = `${uniqueName('sluice-test')}:`
  const clients = [new Redis(REDIS_URL), new Redis(REDIS_URL), new Redis(REDIS_URL), new Redis(REDIS_URL)]
  const queues = await RedisQueues.open(clients[0]!, clients[1]!, {
    prefix,
    log: quiet,
    turn: new RedisTurn(clients[0]!),
  })
  const other = await RedisQueues.open(clients[2]!, clients[3]!, {
    prefix,
    log: quiet,
    turn: new RedisTurn(clients[2]!),
  })
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

const replicas = suiteNeeding(['redis'], 'fair-queue across replicas (Redis only)')
replicas('a replica that stops renewing its leases (a crash) gives its slots back when they run out', async () => {
  const prefix = `${uniqueName('sluice-test')}:`
  const clients = [new Redis(REDIS_URL), new Redis(REDIS_URL), new Redis(REDIS_URL), new Redis(REDIS_URL)]
  // The first "replica" never renews (its heartbeat is a minute away): as if it had died.
  const dying = await RedisQueues.open(clients[0]!, clients[1]!, {
    prefix,
    log: quiet,
    turn: new RedisTurn(clients[0]!),
    leaseMs: 300,
    heartbeatMs: 60_000,
  })
  const alive = await RedisQueues.open(clients[2]!, clients[3]!, {
    prefix,
    log: quiet,
    turn: new RedisTurn(clients[2]!),
    leaseMs: 5_000,
    heartbeatMs: 100,
  })
  try {
    const pool = 'crash'
    await granted(dying.acquire(request(pool)))
    const waiting = alive.acquire(request(pool, { key: 'survivor' }))
    assert.is(await within(waiting, 150), 'pending', 'the slot is still leased')
    ;(await failIfStuck(granted(waiting), "the survivor, once the dead replica's lease ran out")).release(10)
  } finally {
    await dying.close()
    await alive.close()
    const keys = await clients[0]!.keys(`${prefix}*`)
    if (keys.length > 0) await clients[0]!.del(...keys)
    for (const c of clients) await c.quit()
  }
})

/** RedisQueues on one fresh prefix ("replicas"), each with its own lease and heartbeat; closed and cleaned after `run`. */
async function replicasOn(
  options: { leaseMs: number; heartbeatMs: number }[],
  run: (replicas: RedisQueues[]) => Promise<void>,
): Promise<void> {
  const prefix = `${uniqueName('sluice-test')}:`
  const clients = options.flatMap(() => [new Redis(REDIS_URL), new Redis(REDIS_URL)])
  const queues: RedisQueues[] = []
  try {
    for (const [i, o] of options.entries())
      queues.push(
        await RedisQueues.open(clients[2 * i]!, clients[2 * i + 1]!, {
          prefix,
          log: quiet,
          turn: new RedisTurn(clients[2 * i]!),
          ...o,
        }),
      )
    await run(queues)
  } finally {
    for (const q of queues) await q.close()
    const keys = await clients[0]!.keys(`${prefix}*`)
    if (keys.length > 0) await clients[0]!.del(...keys)
    for (const c of clients) await c.quit()
  }
}

replicas(
  "a dead replica's waiter granted just before its lease ends keeps the slot only until that lease, not a fresh one",
  async () => {
    // The dead one never renews; the slot it is granted at ~450 ms must come back at ~600 ms (its
    // waiter's lease), not at ~1,050 ms (a fresh lease from the grant). The yardstick, a second dead
    // replica, holds a slot of another pool whose lease ends between the two (~825 ms): the slot
    // must come back before the yardstick's does.
    const dead = { leaseMs: 600, heartbeatMs: 60_000 }
    const yardstickLease = { leaseMs: 825, heartbeatMs: 60_000 }
    await replicasOn([dead, yardstickLease, { leaseMs: 5_000, heartbeatMs: 50 }], async ([dying, yardstick, alive]) => {
      const pool = 'late-grant'
      const held = await granted(alive!.acquire(request(pool)))
      await granted(yardstick!.acquire(request(`${pool}-yardstick`)))
      void dying!.acquire(request(pool, { key: 'dead' }))
      await sleep(450)
      held.release(10)
      await sleep(30)
      const again = alive!.acquire(request(pool, { key: 'survivor' }))
      const afterYardstick = alive!.acquire(request(`${pool}-yardstick`, { key: 'survivor' }))
      assert.is(await within(again, 60), 'pending', 'the dead waiter was granted the freed slot')
      const order: string[] = []
      const noted = async (what: string, p: Promise<Admission>) => {
        const slot = await granted(p)
        order.push(what)
        return slot
      }
      const slots = await failIfStuck(
        Promise.all([noted('the late-grant slot', again), noted("the yardstick's slot", afterYardstick)]),
        'the slots of the dead replicas',
      )
      for (const s of slots) s.release(10)
      assert.equal(
        order,
        ['the late-grant slot', "the yardstick's slot"],
        "the slot came back with its waiter's lease, before a lease that ends later",
      )
    })
  },
)

replicas(
  'a waiter dropped while its replica was cut from Redis past its lease goes back to its old place',
  async () => {
    // `cut` renews nothing for 700 ms (as if cut off), so its waiter lapses at 300 ms and the other
    // replica's heartbeat drops it; its first heartbeat after that puts it back ahead of a later one.
    await replicasOn(
      [
        { leaseMs: 300, heartbeatMs: 700 },
        { leaseMs: 5_000, heartbeatMs: 50 },
      ],
      async ([cut, alive]) => {
        const pool = 'requeue'
        const held = await granted(alive!.acquire(request(pool)))
        const early = cut!.acquire(request(pool, { key: 'k' }))
        await sleep(20)
        const late = alive!.acquire(request(pool, { key: 'k' }))
        await sleep(850)
        held.release(10)
        const first = await failIfStuck(
          Promise.race([early.then(() => 'early'), late.then(() => 'late')]),
          'both waiters, once the slot was freed',
        )
        assert.is(first, 'early', 'the older waiter is served first')
        ;(await granted(early)).release(10)
        ;(await granted(late)).release(10)
      },
    )
  },
)

replicas.run()
