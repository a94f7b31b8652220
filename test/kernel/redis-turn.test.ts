/**
 * The shared state's one script call a turn (kernel/services/redis/redis-turn.ts), on the real
 * Redis: what one event-loop turn asks of the ledger and the fair queue goes out as one EVALSHA,
 * in order, and a section that fails fails only its own callers.
 */
import * as assert from 'uvu/assert'
import { Redis } from 'ioredis'
import type { LedgerLine } from '../../plugins/budget/ledger/ledger.js'
import type { QueueRequest } from '../../plugins/fair-queue/queues/fair-queues.js'
import { LEDGER_SECTIONS, RedisLedger } from '../../plugins/budget/ledger/redis-ledger.js'
import { RedisQueues } from '../../plugins/fair-queue/queues/redis-queues.js'
import { QUEUE_SECTIONS } from '../../plugins/fair-queue/queues/redis-queue-scripts.js'
import { RedisTurn } from '../../kernel/services/redis/redis-turn.js'
import { createLogger } from '../../kernel/contract/log.js'
import { REDIS_URL, uniqueName } from '../support/services.js'
import { suiteNeeding } from '../support/needs-server.js'

const quiet = createLogger({ level: 'error', sink: { write: () => undefined } })
const NOW = Date.UTC(2026, 4, 14, 12)
const minute = (counter: string, limit: number): LedgerLine => ({
  counter,
  limit,
  fixed: 0,
  perUnit: 1,
  window: { kind: 'sliding', ms: 60_000 },
})
const request = (pool: string): QueueRequest => ({
  pool,
  capacity: 2,
  model: 'm',
  group: 'A',
  groupWeight: 1,
  key: 'a',
  cost: 10,
  timeoutMs: 10_000,
  signal: new AbortController().signal,
  anticipationMs: 0,
})

interface Opened {
  redis: Redis
  prefix: string
  ledger: RedisLedger
  queues: RedisQueues
  close(): Promise<void>
}

/** A ledger and a fair queue on one turn, as they share kernel.redis's (heartbeats out of the way). */
async function open(): Promise<Opened> {
  const prefix = `${uniqueName('sluice-turn')}:`
  const redis = new Redis(REDIS_URL)
  const subscriber = new Redis(REDIS_URL)
  const turn = new RedisTurn(redis, { ...LEDGER_SECTIONS, ...QUEUE_SECTIONS })
  const ledger = new RedisLedger(redis, prefix, { turn, heartbeatMs: 0 })
  const queues = await RedisQueues.open(redis, subscriber, { prefix, log: quiet, turn, heartbeatMs: 60_000 })
  return {
    redis,
    prefix,
    ledger,
    queues,
    async close() {
      ledger.close()
      await queues.close()
      const keys = await redis.keys(`${prefix}*`)
      if (keys.length > 0) await redis.del(...keys)
      await redis.quit()
      await subscriber.quit()
    },
  }
}

const test = suiteNeeding(['redis'], 'redis state: one script call a turn')

test("a turn's settlement, reservation, release and enqueue go out as one EVALSHA, in that order", async () => {
  const s = await open()
  try {
    const first = await s.ledger.reserve([minute('m:turn', 1000)], { min: 1, max: 100 }, NOW)
    assert.ok(first.ok)
    const admission = await s.queues.acquire(request('p'))
    assert.is(admission.kind, 'granted')
    if (!first.ok || admission.kind !== 'granted') return

    // Every command this connection's server runs from now on, as MONITOR shows it.
    const watcher = new Redis(REDIS_URL)
    const monitor = await watcher.monitor()
    const calls: string[][] = []
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua' && /^eval/i.test(args[0] ?? '') && args.some((a) => a.includes(s.prefix))) calls.push(args)
    })
    // MONITOR answers before it has seen a command of ours: one round trip makes sure it is on.
    await s.redis.ping()

    // One synchronous block: one event-loop turn.
    const settled = s.ledger.settle(first.ticket, [40], NOW)
    const reserving = s.ledger.reserve([minute('m:turn', 1000)], { min: 1, max: 100 }, NOW)
    admission.slot.release(5)
    const enqueuing = s.queues.acquire(request('p'))
    const [, second, next] = await Promise.all([settled, reserving, enqueuing])
    assert.ok(second.ok && second.units === 100)
    assert.is(next.kind, 'granted')
    await new Promise((r) => setTimeout(r, 100))
    monitor.disconnect()
    watcher.disconnect()

    assert.is(calls.length, 1, `one script call for the turn, got ${calls.length}`)
    const names = calls[0]!.filter((a) => a in LEDGER_SECTIONS || a in QUEUE_SECTIONS)
    assert.equal(names, ['settle', 'reserve', 'release', 'enqueue'])
    assert.is(
      await s.ledger.used('m:turn', minute('m:turn', 1000).window, NOW),
      140,
      'the settlement (100 → 40) was applied before the new reservation of 100',
    )
  } finally {
    await s.close()
  }
})

test('a section that fails rejects its own callers; the sections beside it are applied', async () => {
  const s = await open()
  try {
    // A window whose keys hold the wrong types: the reservation's section raises WRONGTYPE.
    await s.redis.hset(`${s.prefix}m:broken:log`, 'x', '1')
    await s.redis.hset(`${s.prefix}m:broken:sum`, 'x', '1')
    const [reserved, admitted] = await Promise.allSettled([
      s.ledger.reserve([minute('m:broken', 1000)], { min: 1, max: 10 }, NOW),
      s.queues.acquire(request('q')),
    ])
    assert.is(reserved.status, 'rejected')
    if (reserved.status === 'rejected') assert.match(String(reserved.reason), /WRONGTYPE/)
    assert.is(admitted.status, 'fulfilled')
    if (admitted.status === 'fulfilled')
      assert.is(admitted.value.kind, 'granted', 'the enqueue in the same call was made')
  } finally {
    await s.close()
  }
})

test.run()
