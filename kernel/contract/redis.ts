/**
 * Redis as the kernel opened it (`stores.redis_url`), for plugins whose state is shared by every
 * replica (the budget ledger, the fair queue): `kernel.redis`, undefined when Redis is not
 * configured (state then lives in process memory). The kernel owns the connection and closes it
 * at shutdown, after the plugins' states; a plugin closes the connections it asked for.
 */
import type { Redis } from 'ioredis'

/**
 * One script call an event-loop turn for every plugin's batched work (a turn's settlements,
 * reservations, releases and enqueues go out as one EVALSHA): each kind of work is a section of
 * one Lua script, run under pcall, in the order the sections were added.
 */
export interface RedisTurnBatch {
  /**
   * Adds sections to the turn's script: by name, Lua run as `function(KEYS, ARGV)`. A name
   * already defined with the same Lua is kept; with other Lua it is refused (names are global).
   */
  define(sections: Readonly<Record<string, string>>): void
  /** A flusher runs at the end of each turn that asked for it (wake) and adds its batches; the returned function removes it. */
  onFlush(flusher: () => void): () => void
  /** Asks for this turn's flush (once a turn, however often it is asked). */
  wake(): void
  /** One section of this turn's call; only from a flusher. Resolves with the section's reply. */
  add(name: string, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>
  /** Runs the flushers and sends what they added, now (a close). */
  flush(): Promise<void>
}

export interface RedisService {
  /** The command connection (ioredis), shared: do not quit it, the kernel does. */
  readonly client: Redis
  /** Prefix of every key this deployment writes (`stores.redis_prefix`). */
  readonly prefix: string
  /** How long a replica's reservations and slots outlive its last heartbeat (`stores.lease_ms`). */
  readonly leaseMs: number
  readonly turn: RedisTurnBatch
  /** A further connection, connected (a subscriber, which cannot send commands); its caller quits it. */
  connect(name: string): Promise<Redis>
  /** A cheap round trip (PING) with a bounded wait, for the readiness probe. */
  ping(): Promise<void>
}
