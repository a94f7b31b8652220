/**
 * The fair queue's Lua scripts: the same two-level Virtual Token Counter as VtcPool, with the
 * line kept in Redis so that every replica draws from one capacity and one set of counters.
 * Every entry carries a lease that its process renews; entries of a process that died expire
 * and give their slot back. Keys are built inside the scripts from one base per pool, so this
 * needs a single Redis (or Sentinel), not Redis Cluster.
 *
 * Layout under `<prefix>q:<pool>:` — state (hash: running, capacity, seq, lastLeftGroup);
 * gc/gw/gwait/grun/gllk (per group: counter, weight, waiting, running, last-left key counter);
 * kc/kwait/krun (per group+key); waiters (hash id → JSON) and wexp (zset id → lease);
 * slots (hash id → JSON) and run (zset id → lease); holds (hash group+key → until);
 * kq:<group+key> (list: that key's waiters, oldest first).
 */
import fs from 'node:fs'

/** A script's Lua, from the files beside this module (lua/; the build copies them to dist): the prelude, then its own. */
const PRELUDE = read('prelude')
function read(name: string): string {
  return fs.readFileSync(new URL(`./lua/${name}.lua`, import.meta.url), 'utf8')
}
const script = (name: string) => `${PRELUDE}\n${read(name)}`

/** The enqueues and the releases of one event-loop turn (lua/enqueue.lua, lua/release.lua). */
export const ENQUEUE = script('enqueue')
export const RELEASE = script('release')
/** A waiter leaving the line; a process's heartbeat (lua/cancel.lua, lua/heartbeat.lua). */
export const CANCEL = script('cancel')
export const HEARTBEAT = script('heartbeat')

/** The fair queue's batched work, as sections of a turn's script call. */
export const QUEUE_SECTIONS = { release: RELEASE, enqueue: ENQUEUE }
