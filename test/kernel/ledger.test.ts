/**
 * The budget ledger contract, run against both implementations: process memory and Redis.
 * Reservations are atomic (no overspend under concurrency), shortened to what the tightest
 * budget affords, settled to the actual amount, and windows slide.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Redis } from 'ioredis'
import type { BudgetLedger, LedgerLine } from '../../kernel/services/state/ledger.js'
import { MemoryLedger } from '../../kernel/services/state/memory-ledger.js'
import { RedisLedger } from '../../kernel/services/state/redis-ledger.js'
import { available, REDIS_URL, uniqueName } from '../support/services.js'

const NOW = Date.UTC(2026, 4, 14, 12)
const term = (counter: string, limit: number, fixed: number, perUnit: number, seed?: () => Promise<number>): LedgerLine => ({
  counter,
  limit,
  fixed,
  perUnit,
  window: { kind: 'term', expiresAt: NOW + 86_400_000, seed },
})
const minute = (counter: string, limit: number, fixed: number, perUnit = 1): LedgerLine => ({ counter, limit, fixed, perUnit, window: { kind: 'sliding', ms: 60_000 } })

function ledgerContract(label: string, open: () => Promise<{ ledger: BudgetLedger; close(): Promise<void> } | undefined>): void {
  const test = suite(`ledger contract: ${label}`)
  let opened: { ledger: BudgetLedger; close(): Promise<void> } | undefined
  test.before(async () => {
    opened = await open()
  })
  test.after(async () => opened?.close())
  const it = (name: string, fn: (ledger: BudgetLedger) => Promise<void>) =>
    test(name, async () => {
      if (opened) await fn(opened.ledger)
    })

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
    assert.equal(await ledger.reserve([lines[0]!], { min: 1, max: 1 }, NOW), { ok: false, line: 0 }, 'now the term is spent')
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
    const results = await Promise.all(Array.from({ length: 200 }, () => ledger.reserve(lines, { min: 100, max: 100 }, NOW)))
    assert.is(results.filter((r) => r.ok).length, 20)
    assert.ok(results.filter((r) => !r.ok).every((r) => !r.ok && r.line === 0))
    assert.ok(Math.abs((await ledger.used('t:d', lines[0]!.window, NOW)) - 2.5) < 1e-9, 'spent exactly the budget')
  })

  it('a window forgets what is older than its length', async (ledger) => {
    const line = minute('m:e', 100, 60)
    assert.ok((await ledger.reserve([line], { min: 0, max: 0 }, NOW)).ok)
    assert.not.ok((await ledger.reserve([line], { min: 0, max: 0 }, NOW + 30_000)).ok, 'still inside the minute')
    assert.ok((await ledger.reserve([line], { min: 0, max: 0 }, NOW + 60_001)).ok, 'a minute later it has room again')
    assert.is(await ledger.used('m:e', line.window, NOW + 60_001), 60)
  })

  it('a reservation settled after it left the window counts at settlement', async (ledger) => {
    const line = minute('m:f', 1000, 10)
    const r = await ledger.reserve([line], { min: 0, max: 0 }, NOW)
    assert.ok(r.ok)
    if (!r.ok) return
    await ledger.settle(r.ticket, [400], NOW + 90_000)
    assert.is(await ledger.used('m:f', line.window, NOW + 90_000), 400)
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

ledgerContract('memory', async () => {
  const ledger = new MemoryLedger(() => NOW)
  return { ledger, close: async () => ledger.close() }
})

ledgerContract('redis', async () => {
  if (!(await available('redis'))) return undefined
  const redis = new Redis(REDIS_URL)
  const prefix = `${uniqueName('sluice-test')}:`
  return {
    ledger: new RedisLedger(redis, prefix),
    async close() {
      const keys = await redis.keys(`${prefix}*`)
      if (keys.length > 0) await redis.del(...keys)
      await redis.quit()
    },
  }
})
