/**
 * The fair queue across replicas: the line lives in Redis (redis-queue-scripts.ts) and each
 * process keeps only its own waiters' promises. A grant is pushed to the waiter's process on
 * its own pub/sub channel; a heartbeat (a tenth of the lease) renews this process's leases and
 * picks up any grant whose message was lost, so a dropped message costs at most one beat. A
 * waiter whose entry Redis dropped (this process was cut off for longer than a lease) is put
 * back in its old place at the first heartbeat that gets through, or failed at once.
 */
import crypto from 'node:crypto'
import type { Redis } from 'ioredis'
import type { Admission, FairQueues, PoolLoad, QueueRequest, QueueSlot } from './fair-queues.js'
import { describeCause, type Logger, type RedisTurnBatch } from '../../../kernel/contract/index.js'
import { CANCEL, HEARTBEAT, QUEUE_SECTIONS } from './redis-queue-scripts.js'

export interface RedisQueuesOptions {
  prefix: string
  log: Logger
  /** How long an entry outlives its process's last heartbeat (a crashed replica's slots come back after it). */
  leaseMs?: number
  /** Default: a tenth of the lease. */
  heartbeatMs?: number
  /**
   * The turn's one script call on the same connection (kernel.redis.turn, shared with the
   * ledger); the queue adds its sections (QUEUE_SECTIONS) to it.
   */
  turn: RedisTurnBatch
}

/** A Lua script defined on the connection: called by EVALSHA (EVAL when Redis lost it), with the number of KEYS first. */
type Script = (numKeys: number, ...args: (string | number)[]) => Promise<unknown>

function defineScript(redis: Redis, command: string, lua: string): Script {
  redis.defineCommand(command, { lua })
  // ioredis adds the command as a method of the connection; its types cannot know the name.
  return (redis as unknown as Record<string, Script>)[command]!.bind(redis)
}

interface LocalWaiter {
  readonly request: QueueRequest
  readonly started: number
  /** Its place in the shared line, once the enqueue script answered; unset while a script on it runs. */
  seq?: number
  settle(admission: Admission): void
  fail(err: Error): void
}

interface LocalSlot {
  readonly pool: string
  readonly model: string
}

export class RedisQueues implements FairQueues {
  private readonly process = crypto.randomUUID()
  private readonly waiters = new Map<string, LocalWaiter>()
  private readonly slots = new Map<string, LocalSlot>()
  private readonly scripts: Record<'cancel' | 'heartbeat', Script>
  private readonly turn: RedisTurnBatch
  private readonly stopFlushing: () => void
  private readonly heartbeat: NodeJS.Timeout
  private readonly holdTimers = new Set<NodeJS.Timeout>()
  /** Enqueues waiting for the end of this event-loop turn, per pool (see batchEnqueue). */
  private readonly enqueuing = new Map<
    string,
    {
      id: string
      request: QueueRequest
      seq: number | ''
      resolve: (reply: [number, number]) => void
      reject: (err: unknown) => void
    }[]
  >()
  /** Releases waiting for the end of this event-loop turn, per pool (see release). */
  private readonly releasing = new Map<
    string,
    { id: string; request: QueueRequest; actualCost: number; done: () => void }[]
  >()
  private readonly channel: string

  private readonly prefix: string
  private readonly log: Logger
  private readonly leaseMs: number

  private constructor(
    redis: Redis,
    private readonly subscriber: Redis,
    options: RedisQueuesOptions,
  ) {
    this.prefix = options.prefix
    this.log = options.log
    this.leaseMs = options.leaseMs ?? 10_000
    this.scripts = {
      cancel: defineScript(redis, 'sluiceQueueCancel', CANCEL),
      heartbeat: defineScript(redis, 'sluiceQueueHeartbeat', HEARTBEAT),
    }
    this.turn = options.turn
    this.turn.define(QUEUE_SECTIONS)
    // Releases first: Redis sees them before the enqueues made after them.
    this.stopFlushing = this.turn.onFlush(() => {
      this.flushReleases()
      this.flushEnqueues()
    })
    this.channel = `${this.prefix}q:grant:`
    this.heartbeat = setInterval(
      () => void this.beat(),
      options.heartbeatMs ?? Math.max(50, Math.round(this.leaseMs / 10)),
    )
    this.heartbeat.unref()
  }

  static async open(redis: Redis, subscriber: Redis, options: RedisQueuesOptions): Promise<RedisQueues> {
    const queues = new RedisQueues(redis, subscriber, options)
    subscriber.on('message', (_channel: string, message: string) => queues.onGrant(message))
    await subscriber.subscribe(queues.channel + queues.process)
    return queues
  }

  private args(pool: string): (string | number)[] {
    return [`${this.prefix}q:${pool}:`, this.channel, pool, this.leaseMs]
  }

  private onGrant(message: string): void {
    const [pool, id] = message.split('\n')
    if (pool === undefined || id === undefined) return
    this.granted(id)
  }

  /** A waiter of ours got its slot (by message, heartbeat or a lost cancel race). */
  private granted(id: string): void {
    const waiter = this.waiters.get(id)
    if (!waiter) return
    this.waiters.delete(id)
    this.slots.set(id, { pool: waiter.request.pool, model: waiter.request.model })
    waiter.settle({
      kind: 'granted',
      slot: this.slot(id, waiter.request),
      waitedMs: Math.round(performance.now() - waiter.started),
    })
  }

  private slot(id: string, request: QueueRequest): QueueSlot {
    let released = false
    return {
      release: (actualCost: number) => {
        if (released) return
        released = true
        void this.release(id, request, actualCost)
      },
    }
  }

  /**
   * Releases go out batched: those of one event-loop turn, per pool, in one script (applied in
   * order, each as if alone), so that under load a release costs a fraction of a round trip.
   */
  private release(id: string, request: QueueRequest, actualCost: number): Promise<void> {
    let batch = this.releasing.get(request.pool)
    if (!batch) {
      batch = []
      this.releasing.set(request.pool, batch)
      this.turn.wake()
    }
    return new Promise<void>((done) => batch.push({ id, request, actualCost, done }))
  }

  private flushReleases(): void {
    for (const [pool, batch] of this.releasing) {
      const args: (string | number)[] = []
      for (const r of batch) args.push(r.id, String(r.actualCost), r.request.anticipationMs)
      const done = (held: unknown[]) =>
        batch.forEach((r, i) => {
          this.released(r.id, r.request, Number(held[i] ?? 0))
          r.done()
        })
      this.turn.add('release', [], [...this.args(pool), JSON.stringify(args)]).then(
        (held) => done(held as unknown[]),
        (err: unknown) => {
          // The leases run out and Redis takes the slots back; nothing else to do here.
          this.log.warn('fair queue: release failed; the slot returns when its lease ends', {
            pool,
            cause: describeCause(err),
          })
          done([])
        },
      )
    }
    this.releasing.clear()
  }

  private released(id: string, request: QueueRequest, held: number): void {
    try {
      if (held === 1) {
        // When the hold ends unused, the slot goes to the line: a heartbeat pumps it.
        const timer = setTimeout(() => {
          this.holdTimers.delete(timer)
          void this.pump(request.pool)
        }, request.anticipationMs + 1)
        timer.unref()
        this.holdTimers.add(timer)
      }
    } finally {
      this.slots.delete(id)
    }
  }

  private async pump(pool: string): Promise<void> {
    try {
      // A heartbeat without ids: it only expires and pumps; grants reach their waiters by message.
      await this.scripts.heartbeat(0, ...this.args(pool))
    } catch (err) {
      this.log.warn('fair queue: pump failed', { pool, cause: describeCause(err) })
    }
  }

  async acquire(request: QueueRequest): Promise<Admission> {
    if (request.signal.aborted) return { kind: 'aborted', waitedMs: 0 }
    const id = crypto.randomUUID()
    const started = performance.now()
    const waited = () => Math.round(performance.now() - started)
    let timer: NodeJS.Timeout | undefined
    let onAbort: (() => void) | undefined
    const admission = new Promise<Admission>((resolve, reject) => {
      // Registered before the script runs: the grant message may arrive before its reply.
      const done = () => {
        clearTimeout(timer)
        if (onAbort) request.signal.removeEventListener('abort', onAbort)
      }
      this.waiters.set(id, {
        request,
        started,
        settle: (a) => {
          done()
          resolve(a)
        },
        fail: (err) => {
          done()
          reject(err)
        },
      })
    })
    const leave = async (kind: 'timeout' | 'aborted') => {
      const waiter = this.waiters.get(id)
      if (!waiter) return
      // Out of the heartbeat's reach while the cancel runs: it must not put the waiter back.
      waiter.seq = undefined
      let outcome: string
      try {
        outcome = String(await this.scripts.cancel(0, ...this.args(request.pool), id))
      } catch (err) {
        this.log.warn('fair queue: cancel failed; the waiter expires with its lease', {
          pool: request.pool,
          cause: describeCause(err),
        })
        outcome = 'gone'
      }
      if (!this.waiters.has(id)) return
      if (outcome === 'running') {
        // Granted while we were leaving: a timeout takes the slot, an abort gives it back.
        if (kind === 'timeout') return this.granted(id)
        this.waiters.delete(id)
        void this.release(id, request, 0)
        waiter.settle({ kind: 'aborted', waitedMs: waited() })
        return
      }
      this.waiters.delete(id)
      waiter.settle({ kind, waitedMs: waited() })
    }
    try {
      await this.enqueue(id, request, '')
    } catch (err) {
      this.waiters.delete(id)
      throw err
    }
    if (this.waiters.has(id)) {
      timer = setTimeout(() => void leave('timeout'), request.timeoutMs)
      onAbort = () => void leave('aborted')
      request.signal.addEventListener('abort', onAbort, { once: true })
    }
    return admission
  }

  /** Puts a waiter in the shared line (`seq`: its old place, or '' for a new one). */
  private async enqueue(id: string, request: QueueRequest, seq: number | ''): Promise<void> {
    const [now, place] = await this.batchEnqueue(id, request, seq)
    const waiter = this.waiters.get(id)
    if (!waiter) {
      // Its grant message came before this reply: it holds its slot.
      if (this.slots.has(id)) return
      // It left (timeout, abort) while a re-queue ran: give the entry back rather than leave it to its lease.
      if (Number(now) === 1) await this.release(id, request, 0)
      else await this.scripts.cancel(0, ...this.args(request.pool), id)
      return
    }
    waiter.seq = Number(place)
    if (Number(now) === 1) this.granted(id)
  }

  /**
   * Enqueues go out batched like releases: those of one event-loop turn, per pool, in one
   * script (put in line in order, each as if alone), the releases made before them first.
   */
  private batchEnqueue(id: string, request: QueueRequest, seq: number | ''): Promise<[number, number]> {
    let batch = this.enqueuing.get(request.pool)
    if (!batch) {
      batch = []
      this.enqueuing.set(request.pool, batch)
      this.turn.wake()
    }
    return new Promise((resolve, reject) => batch.push({ id, request, seq, resolve, reject }))
  }

  private flushEnqueues(): void {
    for (const [pool, batch] of this.enqueuing) {
      this.turn.add('enqueue', [], [...this.args(pool), JSON.stringify(this.enqueueArgs(batch))]).then(
        (results) => batch.forEach((e, i) => e.resolve((results as [number, number][])[i]!)),
        (err: unknown) => {
          for (const e of batch) e.reject(err)
        },
      )
    }
    this.enqueuing.clear()
  }

  /**
   * A batch as the enqueue script takes it (one JSON array): this process, the batch's tenants
   * (group, key, weight, model, capacity) each named once, then per request its id, tenant, cost
   * and seq. Numbers that may not be finite go as strings (JSON has no Infinity).
   */
  private enqueueArgs(batch: readonly { id: string; request: QueueRequest; seq: number | '' }[]): (string | number)[] {
    const tenants: (string | number)[] = []
    const index = new Map<string, number>()
    const requests: (string | number)[] = []
    for (const { id, request: r, seq } of batch) {
      const name = `${r.group}\u0000${r.key}\u0000${r.groupWeight}\u0000${r.model}\u0000${r.capacity}`
      let tenant = index.get(name)
      if (tenant === undefined) {
        tenant = index.size + 1
        index.set(name, tenant)
        // Weight and capacity as the strings Redis keeps (the script compares them as such).
        tenants.push(r.group, r.key, String(r.groupWeight), r.model, String(r.capacity))
      }
      requests.push(id, tenant, String(r.cost), seq)
    }
    return [this.process, index.size, ...tenants, ...requests]
  }

  /** A waiter Redis no longer has: back to its old place, or failed now (503) if even that fails. */
  private async requeue(id: string, seq: number): Promise<void> {
    const waiter = this.waiters.get(id)
    if (!waiter) return
    waiter.seq = undefined
    try {
      await this.enqueue(id, waiter.request, seq)
      this.log.info('fair queue: a waiter dropped by Redis is back in its place', { pool: waiter.request.pool })
    } catch (err) {
      if (this.waiters.get(id) !== waiter) return
      this.waiters.delete(id)
      waiter.fail(err as Error)
    }
  }

  /** Renews this process's leases, collects grants whose message was lost, and re-queues waiters Redis dropped. */
  private async beat(): Promise<void> {
    const byPool = new Map<string, string[]>()
    const add = (pool: string, id: string) => {
      const ids = byPool.get(pool)
      if (ids) ids.push(id)
      else byPool.set(pool, [id])
    }
    // A waiter whose enqueue or cancel is still running is left out: its script decides.
    for (const [id, w] of this.waiters) if (w.seq !== undefined) add(w.request.pool, id)
    for (const [id, s] of this.slots) add(s.pool, id)
    for (const [pool, ids] of byPool) {
      try {
        const [running, gone] = (await this.scripts.heartbeat(0, ...this.args(pool), ...ids)) as [string[], string[]]
        for (const id of running) this.granted(id)
        for (const id of gone) {
          const seq = this.waiters.get(id)?.seq
          // A slot that is gone ran past its lease: its reply goes on; its release will find nothing.
          if (seq !== undefined) void this.requeue(id, seq)
        }
      } catch (err) {
        this.log.warn('fair queue: heartbeat failed', { pool, cause: describeCause(err) })
      }
    }
  }

  load(): readonly PoolLoad[] {
    const counts = new Map<string, { pool: string; model: string; waiting: number; running: number }>()
    const at = (pool: string, model: string) => {
      const k = `${pool}\u0000${model}`
      let c = counts.get(k)
      if (!c) {
        c = { pool, model, waiting: 0, running: 0 }
        counts.set(k, c)
      }
      return c
    }
    for (const w of this.waiters.values()) at(w.request.pool, w.request.model).waiting++
    for (const s of this.slots.values()) at(s.pool, s.model).running++
    return [...counts.values()]
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeat)
    // What this turn made goes out first (releases, then enqueues): the waiters are then cancelled below.
    await this.turn.flush()
    this.stopFlushing()
    for (const t of this.holdTimers) clearTimeout(t)
    for (const [id, w] of this.waiters) {
      this.waiters.delete(id)
      await this.scripts.cancel(0, ...this.args(w.request.pool), id).catch(() => undefined)
      w.settle({ kind: 'aborted', waitedMs: Math.round(performance.now() - w.started) })
    }
    await this.subscriber.unsubscribe().catch(() => undefined)
  }
}
