/**
 * The auth step's per-key request windows, the same suite in memory and in the real Redis: a
 * key's last minute holds at most its limit; the wait is until enough counted requests leave;
 * refused requests are not counted; a lowered limit waits for more to leave. In Redis, two
 * processes' windows (two connections, two turns) share one count, and the requests of one
 * event-loop turn go out as one script call.
 */
import * as assert from 'uvu/assert'
import { Redis } from 'ioredis'
import { MemoryRequestWindows, type RequestWindows } from '../../../plugins/auth/request-windows/request-windows.js'
import { RedisRequestWindows } from '../../../plugins/auth/request-windows/redis-request-windows.js'
import { RedisTurn } from '../../../kernel/services/redis/redis-turn.js'
import { createLogger } from '../../../kernel/contract/log.js'
import { REDIS_URL, uniqueName, type Server } from '../../support/services.js'
import { suiteNeeding } from '../../support/needs-server.js'

const quiet = createLogger({ level: 'error', sink: { write: () => undefined } })
const T0 = Date.UTC(2026, 6, 1, 12)

interface Opened {
  /** Two views of one state: two replicas in Redis, the same object in memory. */
  windows: readonly [RequestWindows, RequestWindows]
  close(): Promise<void>
}

function contract(label: string, needs: readonly Server[], open: () => Promise<Opened>): void {
  const test = suiteNeeding(needs, `auth request windows: ${label}`)
  let opened: Opened
  test.before(async () => {
    opened = await open()
  })
  test.after(async () => opened?.close())

  test('the limit holds within the minute; the wait is until the oldest counted request leaves', async () => {
    const [w] = opened.windows
    assert.is(await w.take('k1', 2, T0 + 400), 0)
    assert.is(await w.take('k1', 2, T0 + 30_000), 0)
    assert.is(await w.take('k1', 2, T0 + 45_000), 15_000)
    assert.is(await w.take('k1', 2, T0 + 59_999), 1, 'refused requests are not counted')
    assert.is(await w.take('k1', 2, T0 + 60_000), 0)
    assert.is(await w.take('k1', 2, T0 + 60_500), 29_500)
    assert.is(await w.take('other', 2, T0 + 60_500), 0, 'each key has its own window')
  })

  test('a lowered limit waits until enough have left', async () => {
    const [w] = opened.windows
    for (const at of [0, 10_000, 20_000, 30_000]) assert.is(await w.take('k2', 10, T0 + at), 0)
    // Four counted, limit now 2: room for one when three have left, at T0 + 80 s.
    assert.is(await w.take('k2', 2, T0 + 40_000), 40_000)
  })

  test('two processes share one count: of 12 requests at once, spread over both, 5 are let through', async () => {
    const [a, b] = opened.windows
    const waits = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).take('k3', 5, T0 + i)))
    assert.is(waits.filter((w) => w === 0).length, 5)
    assert.ok(
      waits.filter((w) => w > 0).every((w) => w > 59_000 && w <= 60_000),
      `the others wait about a minute: ${waits}`,
    )
  })

  test.run()
}

contract('memory', [], async () => {
  const memory = new MemoryRequestWindows()
  return { windows: [memory, memory], close: async () => memory.close() }
})

async function openRedis(): Promise<Opened & { prefix: string; redis: Redis }> {
  const prefix = `${uniqueName('sluice-rpm')}:`
  const connections = [new Redis(REDIS_URL), new Redis(REDIS_URL)] as const
  const windows = connections.map((c) => new RedisRequestWindows(new RedisTurn(c), prefix, quiet))
  return {
    prefix,
    redis: connections[0],
    windows: [windows[0]!, windows[1]!],
    async close() {
      try {
        await Promise.all(windows.map((w) => w.close()))
        const stale = await connections[1].keys(`${prefix}*`)
        if (stale.length > 0) await connections[1].del(...stale)
      } finally {
        for (const c of connections) c.disconnect()
      }
    },
  }
}

contract('redis', ['redis'], openRedis)

const turn = suiteNeeding(['redis'], 'auth request windows: redis, one script call a turn')
turn("a turn's requests are counted by one EVALSHA; a failing Redis lets them through", async () => {
  const s = await openRedis()
  const watcher = new Redis(REDIS_URL)
  try {
    const monitor = await watcher.monitor()
    const calls: string[][] = []
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua' && /^eval/i.test(args[0] ?? '') && args.some((a) => a.includes(s.prefix))) calls.push(args)
    })
    // MONITOR answers before it has seen a command of ours: one round trip makes sure it is on.
    await s.redis.ping()
    const [w] = s.windows
    const waits = await Promise.all(['a', 'b', 'a', 'c', 'a'].map((key) => w.take(key, 2, T0)))
    await new Promise((r) => setTimeout(r, 100))
    monitor.disconnect()
    assert.equal(waits, [0, 0, 0, 0, 60_000])
    assert.is(calls.length, 1, `one script call for the turn, got ${calls.length}`)
    // This process's Redis gone: served, and logged.
    s.redis.disconnect()
    assert.is(await w.take('a', 2, T0), 0)
  } finally {
    watcher.disconnect()
    await s.close().catch(() => undefined)
  }
})
turn.run()
