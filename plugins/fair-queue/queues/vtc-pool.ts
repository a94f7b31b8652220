/**
 * One backend pool's fair line, in memory: the Virtual Token Counter at two levels. Each group
 * has a counter of the service it received divided by its weight; each key, inside its group,
 * a counter of the service it received. A free slot goes to the waiting group with the lowest
 * counter, and inside it to the waiting key with the lowest counter (first come first served
 * for that key's own requests). A group or key that comes back after being idle has its
 * counter lifted to the lowest waiting counter, so idleness is not banked as credit.
 */
import type { QueueRequest, QueueSlot } from './fair-queues.js'

export interface Waiter {
  readonly request: QueueRequest
  readonly seq: number
  readonly arrivedAt: number
  /** Called once when the waiter gets its slot. */
  readonly grant: (slot: QueueSlot) => void
}

interface KeyLine {
  readonly id: string
  counter: number
  readonly queue: Waiter[]
  running: number
}

interface GroupLine {
  readonly id: string
  weight: number
  counter: number
  readonly keys: Map<string, KeyLine>
  waiting: number
  running: number
  /** Counter of the key that last stopped waiting (the lift when no other key waits). */
  lastLeftKey: number
}

interface Hold {
  readonly group: string
  readonly key: string
  readonly timer: NodeJS.Timeout
}

const holdId = (group: string, key: string) => `${group}\u0000${key}`

export class VtcPool {
  capacity = 1
  private running = 0
  private waiting = 0
  private seq = 0
  private readonly groups = new Map<string, GroupLine>()
  private lastLeftGroup = 0
  private readonly holds = new Map<string, Hold>()
  /** Waiting and running per model, for metrics. */
  readonly models = new Map<string, { waiting: number; running: number }>()

  constructor(private readonly now: () => number = () => performance.now()) {}

  get busy(): boolean {
    return this.running > 0 || this.waiting > 0 || this.holds.size > 0
  }

  private modelCount(model: string) {
    let m = this.models.get(model)
    if (!m) {
      m = { waiting: 0, running: 0 }
      this.models.set(model, m)
    }
    return m
  }

  /**
   * Starts the request at once when nobody waits and a slot is free (or is kept for its key):
   * the common case, with no line to walk. Undefined when it has to wait.
   */
  tryStart(request: QueueRequest): QueueSlot | undefined {
    this.capacity = request.capacity
    if (this.waiting > 0) return undefined
    const group = this.groupLine(request.group, request.groupWeight)
    const key = this.keyLine(group, request.key)
    const id = holdId(group.id, key.id)
    const held = this.holds.get(id)
    if (held) {
      clearTimeout(held.timer)
      this.holds.delete(id)
    } else {
      if (this.running + this.holds.size >= this.capacity) return undefined
      this.lift(group, key)
    }
    const model = this.modelCount(request.model)
    model.running++
    const slot = this.start(group, key, request)
    // As if it passed through the (empty) line: it is the last to have left it.
    group.lastLeftKey = key.counter
    this.lastLeftGroup = group.counter
    return slot
  }

  /** Adds a request to the line; it is granted at once when a slot is free. */
  enqueue(request: QueueRequest, grant: (slot: QueueSlot) => void): Waiter {
    this.capacity = request.capacity
    const group = this.groupLine(request.group, request.groupWeight)
    const key = this.keyLine(group, request.key)
    const held = this.holds.get(holdId(group.id, key.id))
    if (!held) this.lift(group, key)
    const waiter: Waiter = { request, seq: this.seq++, arrivedAt: this.now(), grant }
    key.queue.push(waiter)
    group.waiting++
    this.waiting++
    this.modelCount(request.model).waiting++
    if (held) {
      // The slot kept for this key: it is served now.
      clearTimeout(held.timer)
      this.holds.delete(holdId(group.id, key.id))
      this.dispatch(group, key)
    }
    this.pump()
    return waiter
  }

  /** True while the waiter is in line (not granted, not cancelled). */
  isWaiting(waiter: Waiter): boolean {
    return this.groups.get(waiter.request.group)?.keys.get(waiter.request.key)?.queue.includes(waiter) ?? false
  }

  /** Takes a waiter out of the line (timed out or aborted); false when it was already granted. */
  cancel(waiter: Waiter): boolean {
    const group = this.groups.get(waiter.request.group)
    const key = group?.keys.get(waiter.request.key)
    const i = key ? key.queue.indexOf(waiter) : -1
    if (!group || !key || i < 0) return false
    key.queue.splice(i, 1)
    group.waiting--
    this.waiting--
    this.modelCount(waiter.request.model).waiting--
    if (key.queue.length === 0) group.lastLeftKey = key.counter
    if (group.waiting === 0) this.lastLeftGroup = group.counter
    return true
  }

  private groupLine(id: string, weight: number): GroupLine {
    let g = this.groups.get(id)
    if (!g) {
      g = { id, weight, counter: 0, keys: new Map(), waiting: 0, running: 0, lastLeftKey: 0 }
      this.groups.set(id, g)
    }
    g.weight = weight
    return g
  }

  private keyLine(group: GroupLine, id: string): KeyLine {
    let k = group.keys.get(id)
    if (!k) {
      k = { id, counter: 0, queue: [], running: 0 }
      group.keys.set(id, k)
    }
    return k
  }

  /** VTC's counter lift, for a group or key that had nothing waiting or running. */
  private lift(group: GroupLine, key: KeyLine): void {
    if (group.waiting === 0 && group.running === 0) {
      let min: number | undefined
      for (const g of this.groups.values()) if (g.waiting > 0 && (min === undefined || g.counter < min)) min = g.counter
      group.counter = Math.max(group.counter, min ?? this.lastLeftGroup)
    }
    if (key.queue.length === 0 && key.running === 0) {
      let min: number | undefined
      for (const k of group.keys.values())
        if (k.queue.length > 0 && (min === undefined || k.counter < min)) min = k.counter
      key.counter = Math.max(key.counter, min ?? group.lastLeftKey)
    }
  }

  /** Grants free slots (not counting slots held for a key) to the least-served waiters. */
  private pump(): void {
    while (this.waiting > 0 && this.running + this.holds.size < this.capacity) {
      const group = this.pickGroup()!
      this.dispatch(group, this.pickKey(group)!)
    }
  }

  private pickGroup(): GroupLine | undefined {
    let best: GroupLine | undefined
    let bestSeq = Infinity
    for (const g of this.groups.values()) {
      if (g.waiting === 0) continue
      const seq = this.headSeq(g)
      if (!best || g.counter < best.counter || (g.counter === best.counter && seq < bestSeq)) {
        best = g
        bestSeq = seq
      }
    }
    return best
  }

  private headSeq(group: GroupLine): number {
    let seq = Infinity
    for (const k of group.keys.values()) if (k.queue.length > 0 && k.queue[0]!.seq < seq) seq = k.queue[0]!.seq
    return seq
  }

  private pickKey(group: GroupLine): KeyLine | undefined {
    let best: KeyLine | undefined
    for (const k of group.keys.values()) {
      if (k.queue.length === 0) continue
      if (!best || k.counter < best.counter || (k.counter === best.counter && k.queue[0]!.seq < best.queue[0]!.seq))
        best = k
    }
    return best
  }

  private dispatch(group: GroupLine, key: KeyLine): void {
    const waiter = key.queue.shift()!
    const { request } = waiter
    group.waiting--
    this.waiting--
    const model = this.modelCount(request.model)
    model.waiting--
    model.running++
    const slot = this.start(group, key, request)
    if (key.queue.length === 0) group.lastLeftKey = key.counter
    if (group.waiting === 0) this.lastLeftGroup = group.counter
    waiter.grant(slot)
  }

  /** Counts a request as running and charges its estimated service. */
  private start(group: GroupLine, key: KeyLine, request: QueueRequest): QueueSlot {
    key.running++
    group.running++
    this.running++
    group.counter += request.cost / group.weight
    key.counter += request.cost
    let released = false
    return {
      release: (actualCost: number) => {
        if (released) return
        released = true
        this.release(group, key, request, actualCost)
      },
    }
  }

  private release(group: GroupLine, key: KeyLine, request: QueueRequest, actualCost: number): void {
    key.running--
    group.running--
    this.running--
    this.modelCount(request.model).running--
    const delta = actualCost - request.cost
    group.counter += delta / group.weight
    key.counter += delta
    if (request.anticipationMs > 0 && this.waiting > 0 && key.queue.length === 0 && this.wouldBeNext(group, key)) {
      const id = holdId(group.id, key.id)
      if (!this.holds.has(id)) {
        const timer = setTimeout(() => {
          this.holds.delete(id)
          this.pump()
        }, request.anticipationMs)
        timer.unref()
        this.holds.set(id, { group: group.id, key: key.id, timer })
      }
    }
    this.pump()
  }

  /** Would this key be served next if it had a request waiting (its group first, then it inside the group)? */
  private wouldBeNext(group: GroupLine, key: KeyLine): boolean {
    for (const g of this.groups.values()) if (g !== group && g.waiting > 0 && g.counter < group.counter) return false
    for (const k of group.keys.values()) if (k !== key && k.queue.length > 0 && k.counter < key.counter) return false
    return true
  }

  /** Drops the holds (shutdown). */
  close(): void {
    for (const h of this.holds.values()) clearTimeout(h.timer)
    this.holds.clear()
  }
}
