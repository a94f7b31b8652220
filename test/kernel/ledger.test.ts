/**
 * The budget ledger contract, run against both implementations: process memory and Redis.
 * Reservations are atomic (no overspend under concurrency), shortened to what the tightest
 * budget affords, settled to the actual amount, and windows slide.
 */
import * as assert from 'uvu/assert'
import { Redis } from 'ioredis'
import type { BudgetLedger, LedgerLine } from '../../plugins/budget/ledger/ledger.js'
import { MemoryLedger } from '../../plugins/budget/ledger/memory-ledger.js'
import { RedisLedger } from '../../plugins/budget/ledger/redis-ledger.js'
import { RedisTurn } from '../../kernel/services/redis/redis-turn.js'
import { REDIS_URL, uniqueName, type Server } from '../support/services.js'
import { suiteNeeding } from '../support/needs-server.js'
import { until } from '../support/stuck.js'

const NOW = Date.UTC(2026, 4, 14, 12)
const term = (
  counter: string,
  limit: number,
  fixed: number,
  perUnit: number,
  seed?: () => Promise<number>,
): LedgerLine => ({
  counter,
  limit,
  fixed,
  perUnit,
  window: { kind: 'term', expiresAt: NOW + 86_400_000, seed },
})
const minute = (counter: string, limit: number, fixed: number, perUnit = 1): LedgerLine => ({
  counter,
  limit,
  fixed,
  perUnit,
  window: { kind: 'sliding', ms: 60_000 },
})

function ledgerContract(
  label: string,
  needs: readonly Server[],
  open: () => Promise<{ ledger: BudgetLedger; close(): Promise<void> }>,
): void {
  const test = suiteNeeding(needs, `ledger contract: ${label}`)
  let opened: { ledger: BudgetLedger; close(): Promise<void> } | undefined
  test.before(async () => {
    opened = await open()
  })
  test.after(async () => opened?.close())
  const it = (name: string, fn: (ledger: BudgetLedger) => Promise<void>) => test(name, () => fn(opened!.ledger))

  it('grants the whole ask when every line affords it, and counts it', async (ledger) => {
    const lines = [term('t:a', 10, 1, 0.01), minute('m:a', 1000, 100)]
    const r = await ledger.reserve(lines, { min: 10, max: 200 }, NOW)
    assert.ok(r.ok)
    if (!r.ok) return
    assert.is(r.units, 200)
    assert.is(await ledger.used('t:a', lines[0]!.window, NOW), 3)
    assert.is(await ledger.used('m:a', lines[1]!.window, NOW), 300)
  })

  it('shortens the ask to what the tightest line affords, and refuses below min naming the line', async (ledger) => {
    const lines = [term('t:b', 1000, 0, 1), minute('m:b', 150, 50)]
    const r = await ledger.reserve(lines, { min: 10, max: 500 }, NOW)
    assert.ok(r.ok && r.units === 100, 'the window affords 100 of the 500 asked')
    const refused = await ledger.reserve(lines, { min: 10, max: 500 }, NOW)
    assert.equal(refused, { ok: false, line: 1 }, 'the minute window is spent: line 1')
    const rest = await ledger.reserve([lines[0]!], { min: 1, max: 5000 }, NOW)
    assert.ok(rest.ok && rest.units === 900, 'the term had 900 left')
    assert.equal(
      await ledger.reserve([lines[0]!], { min: 1, max: 1 }, NOW),
      { ok: false, line: 0 },
      'now the term is spent',
    )
  })

  it('settling replaces the reservation with what was used, in terms and in windows', async (ledger) => {
    const lines = [term('t:c', 50, 2, 0.1), minute('m:c', 5000, 20)]
    const r = await ledger.reserve(lines, { min: 1, max: 100 }, NOW)
    assert.ok(r.ok)
    if (!r.ok) return
    await ledger.settle(r.ticket, [2.5, 45], NOW + 10)
    assert.ok(Math.abs((await ledger.used('t:c', lines[0]!.window, NOW + 10)) - 2.5) < 1e-9)
    assert.is(await ledger.used('m:c', lines[1]!.window, NOW + 10), 45)
  })

  it('200 concurrent reservations against a budget that covers 20: exactly 20 are granted', async (ledger) => {
    const lines = [term('t:d', 20 * 0.125, 0.025, 0.001), minute('m:d', 100_000, 1)]
    const results = await Promise.all(
      Array.from({ length: 200 }, () => ledger.reserve(lines, { min: 100, max: 100 }, NOW)),
    )
    assert.is(results.filter((r) => r.ok).length, 20)
    assert.ok(results.filter((r) => !r.ok).every((r) => !r.ok && r.line === 0))
    assert.ok(Math.abs((await ledger.used('t:d', lines[0]!.window, NOW)) - 2.5) < 1e-9, 'spent exactly the budget')
  })

  it('settlements made together (one event-loop turn) each count, in terms and in windows, and free their reservations', async (ledger) => {
    const lines = [term('t:h', 100, 1, 0.01), minute('m:h', 100_000, 10)]
    const tickets = await Promise.all(
      Array.from({ length: 12 }, () => ledger.reserve(lines, { min: 100, max: 100 }, NOW)),
    )
    assert.ok(Math.abs((await ledger.used('t:h', lines[0]!.window, NOW)) - 24) < 1e-9, '12 reservations of 2 are held')
    // Settled in the same turn, as many requests ending at once do; the fourth term line is 0.5.
    await Promise.all(
      tickets.map((r, i) =>
        r.ok ? ledger.settle(r.ticket, [i === 3 ? 0.5 : 1.5, 15 + i], NOW + 5) : Promise.reject(new Error('refused')),
      ),
    )
    assert.ok(
      Math.abs((await ledger.used('t:h', lines[0]!.window, NOW + 5)) - (11 * 1.5 + 0.5)) < 1e-9,
      'the term counts what was used, nothing held',
    )
    assert.is(await ledger.used('m:h', lines[1]!.window, NOW + 5), 12 * 15 + 66)
  })

  it('a window forgets what is older than its length', async (ledger) => {
    const line = minute('m:e', 100, 60)
    assert.ok((await ledger.reserve([line], { min: 0, max: 0 }, NOW)).ok)
    assert.not.ok((await ledger.reserve([line], { min: 0, max: 0 }, NOW + 30_000)).ok, 'still inside the minute')
    assert.ok((await ledger.reserve([line], { min: 0, max: 0 }, NOW + 60_001)).ok, 'a minute later it has room again')
    assert.is(await ledger.used('m:e', line.window, NOW + 60_001), 60)
  })

  it('reservations made together (one event-loop turn) a window apart: the later one no longer counts the earlier', async (ledger) => {
    const line = minute('m:j', 100, 60)
    const [first, second, third] = await Promise.all([
      ledger.reserve([line], { min: 0, max: 0 }, NOW),
      ledger.reserve([line], { min: 0, max: 0 }, NOW + 30_000),
      ledger.reserve([line], { min: 0, max: 0 }, NOW + 60_001),
    ])
    assert.ok(first.ok, 'an empty window')
    assert.not.ok(second.ok, 'the first is still inside the minute')
    assert.ok(third.ok, 'a minute later the first has left the window')
    assert.is(await ledger.used('m:j', line.window, NOW + 60_001), 60)
  })

  it('a reservation settled after it left the window counts at settlement', async (ledger) => {
    const line = minute('m:f', 1000, 10)
    const r = await ledger.reserve([line], { min: 0, max: 0 }, NOW)
    assert.ok(r.ok)
    if (!r.ok) return
    await ledger.settle(r.ticket, [400], NOW + 90_000)
    assert.is(await ledger.used('m:f', line.window, NOW + 90_000), 400)
  })

  it('settlements made together count each once, one reservation still in the window, one that left it', async (ledger) => {
    const line = minute('m:k', 1000, 10)
    const early = await ledger.reserve([line], { min: 0, max: 0 }, NOW)
    const late = await ledger.reserve([line], { min: 0, max: 0 }, NOW + 50_000)
    assert.ok(early.ok && late.ok)
    if (!early.ok || !late.ok) return
    // One turn, 90 s in: the early reservation has left the window (its use counts at settlement), the late one has not.
    await Promise.all([
      ledger.settle(late.ticket, [30], NOW + 90_000),
      ledger.settle(early.ticket, [400], NOW + 90_000),
    ])
    assert.is(await ledger.used('m:k', line.window, NOW + 90_000), 430)
    assert.is(
      await ledger.used('m:k', line.window, NOW + 110_001),
      400,
      'the late one leaves a minute after it was reserved',
    )
  })

  it('a term counter seen for the first time starts from its seed, once', async (ledger) => {
    let seeded = 0
    const seed = async () => {
      seeded++
      return 9
    }
    const line = term('t:g', 10, 0.5, 0, seed)
    const results = await Promise.all(Array.from({ length: 5 }, () => ledger.reserve([line], { min: 0, max: 0 }, NOW)))
    assert.is(results.filter((r) => r.ok).length, 2, '9 already spent: two reservations of 0.5 fit in 10')
    assert.ok(seeded >= 1)
    assert.ok(Math.abs((await ledger.used('t:g', line.window, NOW)) - 10) < 1e-9)
  })

  test.run()
}

ledgerContract('memory', [], async () => {
  const ledger = new MemoryLedger(() => NOW)
  return { ledger, close: async () => ledger.close() }
})

ledgerContract('redis', ['redis'], async () => {
  const redis = new Redis(REDIS_URL)
  const prefix = `${uniqueName('sluice-test')}:`
  return {
    ledger: new RedisLedger(redis, prefix, { turn: new RedisTurn(redis) }),
    async close() {
      const keys = await redis.keys(`${prefix}*`)
      if (keys.length > 0) await redis.del(...keys)
      await redis.quit()
    },
  }
})

// ——— Redis only: leases of term reservations, and reconciliation with the records ———

const shared = suiteNeeding(['redis'], 'ledger across replicas (Redis only)')
const MINUTE = 60_000

async function withRedis(run: (redis: Redis, prefix: string) => Promise<void>): Promise<void> {
  const redis = new Redis(REDIS_URL)
  const prefix = `${uniqueName('sluice-test')}:`
  try {
    await run(redis, prefix)
  } finally {
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
    await redis.quit()
  }
}

shared(
  'a term reservation whose process stops renewing it lapses at the end of its lease; a live one is kept',
  async () => {
    await withRedis(async (redis, prefix) => {
      // The dead process never renews (heartbeat a minute away); the live one renews every 50 ms.
      const dead = new RedisLedger(redis, prefix, { leaseMs: 300, heartbeatMs: 60_000, turn: new RedisTurn(redis) })
      const live = new RedisLedger(redis, prefix, { leaseMs: 300, heartbeatMs: 50, turn: new RedisTurn(redis) })
      try {
        const line = term('t:lease', 100, 10, 0)
        const a = await dead.reserve([line], { min: 0, max: 0 }, NOW)
        const b = await live.reserve([line], { min: 0, max: 0 }, NOW)
        assert.ok(a.ok && b.ok)
        assert.is(await live.used('t:lease', line.window, NOW), 20)
        // Both were made together with the same lease: when the dead one's lapses, the live one's would too, unless renewed.
        await until(
          "the dead process's reservation to lapse",
          async () => (await live.used('t:lease', line.window, NOW)) < 20,
        )
        assert.is(
          await live.used('t:lease', line.window, NOW),
          10,
          "the dead process's reservation is gone; the live one's is kept",
        )
        // A settlement that comes after its lease lapsed still counts, once.
        if (a.ok) await dead.settle(a.ticket, [4], NOW)
        if (b.ok) await live.settle(b.ticket, [6], NOW)
        assert.is(await live.used('t:lease', line.window, NOW), 10)
      } finally {
        dead.close()
        live.close()
      }
    })
  },
)

shared('reconcile replaces what was settled for past minutes by what the records say, once', async () => {
  await withRedis(async (redis, prefix) => {
    const ledger = new RedisLedger(redis, prefix, { leaseMs: 5_000, turn: new RedisTurn(redis) })
    const other = new RedisLedger(redis, prefix, { leaseMs: 5_000, turn: new RedisTurn(redis) })
    try {
      const line: LedgerLine = {
        counter: 't:rec',
        limit: 100,
        fixed: 5,
        perUnit: 0,
        window: { kind: 'term', expiresAt: NOW + 86_400_000, seed: async () => 2, scope: { keyId: 'k' } },
      }
      // Two requests started in the first minute after the seed; settled 5 each.
      for (const at of [NOW + 1000, NOW + 2000]) {
        const r = await ledger.reserve([line], { min: 0, max: 0 }, NOW, at)
        if (r.ok) await ledger.settle(r.ticket, [5], NOW)
      }
      assert.is(await ledger.used('t:rec', line.window, NOW), 12)
      // The records hold one of them (the other's was lost in a crash) and one whose settlement was lost.
      const asked: [number, number][] = []
      const recorded = async (scope: unknown, from: number, to: number) => {
        assert.equal(scope, { keyId: 'k' })
        asked.push([from, to])
        return 5 + 3
      }
      const [first, second] = await Promise.all([
        ledger.reconcile(recorded, NOW + 2 * MINUTE + 5),
        other.reconcile(recorded, NOW + 2 * MINUTE + 5),
      ])
      assert.equal(
        [...first.adjusted, ...second.adjusted],
        [{ counter: 't:rec', delta: -2 }],
        'applied once, by one of the two',
      )
      assert.is(await ledger.used('t:rec', line.window, NOW), 10)
      assert.equal(asked[0], [NOW, NOW + 2 * MINUTE])
      const again = await ledger.reconcile(recorded, NOW + 2 * MINUTE + 5)
      assert.is(again.adjusted.length, 0, 'those minutes are done')
    } finally {
      ledger.close()
      other.close()
    }
  })
})

shared.run()
