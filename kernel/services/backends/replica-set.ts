/**
 * The replicas of one backend and how a request picks one: least outstanding requests, round
 * robin, or prefix-aware (a prompt whose leading blocks a replica served goes back to it while
 * that replica is not overloaded, in the manner of llm-d's KV-cache-aware routing). A failing
 * replica is taken out in Envoy's manner: passive outlier ejection after consecutive failures
 * (for base_ejection_ms × times ejected, at most max_ejection_percent of the replicas), and
 * active health checks that keep a replica out while they fail and let an ejected one back in
 * once its time is over. With every replica out, all are tried (Envoy's panic mode): a guess
 * beats refusing. A backend with one replica does none of this.
 */
import type { BackendConfig } from '../../../schemas/models.schema.js'
import { PrefixHasher, promptStart } from './prefix-blocks.js'
import { PrefixIndex } from './prefix-index.js'
import { Replica } from './replica.js'

type Policy = 'prefix_aware' | 'least_loaded' | 'round_robin'

/** Bit i set: replica i was tried for this request (at most 32 replicas, the schema says so). */
export type Tried = number

export class ReplicaSet {
  readonly replicas: readonly Replica[]
  /** The backend's `timeout_ms`: how long an attempt waits for a replica to start answering. */
  readonly timeoutMs: number | undefined
  private readonly policy: Policy
  private readonly hasher: PrefixHasher
  private readonly index: PrefixIndex
  private readonly slack: number
  private readonly failuresToEject: number
  private readonly baseEjectionMs: number
  private readonly maxEjected: number
  private readonly healthPath: string
  private readonly healthTimeoutMs: number
  private readonly timer: NodeJS.Timeout | undefined
  private turn = 0
  // The state of the current pick, read by `eligible` (made once: no closure per request).
  private pickTried: Tried = 0
  private pickLimit = 0
  private pickPanic = false

  constructor(
    readonly name: string,
    config: BackendConfig & { baseUrl: string },
    private readonly now: () => number = Date.now,
  ) {
    const urls = [...new Set([config.baseUrl, ...(config.replicas ?? [])].map((u) => u.replace(/\/+$/, '')))]
    this.replicas = urls.map((u, i) => new Replica(i, u, config.connections ?? 64, config.http2 === true))
    this.timeoutMs = config.timeout_ms
    const routing = config.routing ?? {}
    this.policy = routing.policy ?? 'prefix_aware'
    this.hasher = new PrefixHasher(routing.prefix_block_chars ?? 256)
    this.index = new PrefixIndex(routing.prefix_index_blocks ?? 65536)
    this.slack = routing.overload_slack ?? 4
    const outlier = config.outlier_detection ?? {}
    this.failuresToEject = outlier.consecutive_failures ?? 5
    this.baseEjectionMs = outlier.base_ejection_ms ?? 30_000
    this.maxEjected = Math.max(1, Math.floor((this.replicas.length * (outlier.max_ejection_percent ?? 50)) / 100))
    const health = config.health_check ?? {}
    this.healthPath = health.path ?? '/health'
    this.healthTimeoutMs = health.timeout_ms ?? 2000
    if (this.replicas.length > 1) {
      this.timer = setInterval(() => void this.checkAll(), health.interval_ms ?? 5000)
      this.timer.unref()
    }
  }

  /** The replica for the next attempt of a request, or undefined when every one was tried. */
  pick(body: unknown, tried: Tried): Replica | undefined {
    const replicas = this.replicas
    if (replicas.length === 1) return tried === 0 ? replicas[0] : undefined
    let serving = 0
    let least = Infinity
    for (const r of replicas) {
      if (tried & (1 << r.index) || !r.serving) continue
      serving++
      if (r.outstanding < least) least = r.outstanding
    }
    const panic = serving === 0
    if (panic) for (const r of replicas) if (!(tried & (1 << r.index)) && r.outstanding < least) least = r.outstanding
    if (least === Infinity) return undefined
    this.pickTried = tried
    this.pickPanic = panic
    if (this.policy === 'round_robin') return this.inTurn(Infinity)
    if (this.policy === 'prefix_aware' && typeof body === 'string') {
      const count = this.hasher.hash(body, promptStart(body))
      this.pickLimit = least + this.slack
      const owner = this.index.longestOwner(this.hasher.hashes(), count, this.eligible)
      const chosen = owner >= 0 ? replicas[owner]! : this.inTurn(least)
      this.index.store(this.hasher.hashes(), count, chosen.index)
      return chosen
    }
    return this.inTurn(least)
  }

  /** Some replica was not tried yet. */
  untried(tried: Tried): boolean {
    return this.replicas.some((r) => !(tried & (1 << r.index)))
  }

  /** An owner of a prefix may take the request: untried, serving (unless in panic), not overloaded. */
  private readonly eligible = (i: number): boolean => {
    const r = this.replicas[i]
    return (
      r !== undefined &&
      !(this.pickTried & (1 << i)) &&
      (this.pickPanic || r.serving) &&
      r.outstanding <= this.pickLimit
    )
  }

  /** The next candidate after the last one picked with at most `most` outstanding, so that ties take turns. */
  private inTurn(most: number): Replica {
    const n = this.replicas.length
    for (let k = 0; k < n; k++) {
      const r = this.replicas[(this.turn + k) % n]!
      if (this.pickTried & (1 << r.index) || !(this.pickPanic || r.serving) || r.outstanding > most) continue
      this.turn = (r.index + 1) % n
      return r
    }
    // Unreachable: pick() found a candidate before calling this.
    return this.replicas[0]!
  }

  begin(r: Replica): void {
    r.outstanding++
    r.requests++
  }

  end(r: Replica): void {
    r.outstanding--
  }

  succeeded(r: Replica): void {
    r.consecutiveFailures = 0
  }

  /** A 5xx answer, a connection refused or reset: enough in a row eject the replica. */
  failed(r: Replica): void {
    if (this.replicas.length === 1) return
    r.consecutiveFailures++
    if (r.ejected || r.consecutiveFailures < this.failuresToEject) return
    if (this.replicas.filter((x) => x.ejected).length >= this.maxEjected) return
    r.ejected = true
    r.timesEjected++
    r.ejectedUntil = this.now() + this.baseEjectionMs * r.timesEjected
    r.consecutiveFailures = 0
  }

  /** A serving replica, for the readiness probe (the first, when none is). */
  representative(): Replica {
    return this.replicas.find((r) => r.serving) ?? this.replicas[0]!
  }

  /** One round of active health checks, every replica at once. */
  async checkAll(): Promise<void> {
    await Promise.all(this.replicas.map((r) => this.check(r)))
  }

  private async check(r: Replica): Promise<void> {
    let ok = false
    try {
      const res = await r.pool.request({
        origin: r.origin,
        path: r.pathPrefix + this.healthPath,
        method: 'GET',
        signal: AbortSignal.timeout(this.healthTimeoutMs),
      })
      await res.body.dump()
      ok = res.statusCode < 400
    } catch {
      ok = false
    }
    r.healthy = ok
    if (ok && r.ejected && this.now() >= r.ejectedUntil) r.ejected = false
  }

  async close(cut: boolean): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    await Promise.all(this.replicas.map((r) => (cut ? r.pool.destroy() : r.pool.close()).catch(() => undefined)))
  }
}
