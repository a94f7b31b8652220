/**
 * One script call an event-loop turn for the shared state's batched work (issue 18, point 3).
 *
 * The ledger's settlements and reservations and the fair queue's releases and enqueues are each
 * batched per turn already; before this, each kind (and each pool) was its own EVALSHA, so a busy
 * turn paid up to four calls: four commands for ioredis to build and write, four for Redis to
 * read, set up and answer. Here every batched kind is a section of one script, and a turn's
 * sections go out as one call, run in the order they were added: settlements before the
 * reservations made after them, releases before enqueues, as when they were separate calls.
 *
 * A section runs under pcall: one that fails (a key of the wrong type, say) rejects its own
 * callers only, as a separate script call would have; the sections before and after it run.
 */
import fs from 'node:fs'
import type { Redis } from 'ioredis'
import type { RedisTurnBatch } from '../../contract/redis.js'
import { defineScript, type Script } from './redis-script.js'

interface Section {
  name: string
  keys: readonly string[]
  args: readonly (string | number)[]
  resolve: (reply: unknown) => void
  reject: (err: unknown) => void
}

/** The loop over a call's sections (turn.lua, copied beside this file by the build). */
const LOOP = fs.readFileSync(new URL('./turn.lua', import.meta.url), 'utf8')

/** The script: each section's Lua as a function of its own KEYS and ARGV, then the loop over the call's sections. */
function turnScript(sections: Readonly<Record<string, string>>): string {
  const functions = Object.entries(sections).map(
    ([name, lua]) => `S[${JSON.stringify(name)}] = function(KEYS, ARGV)\n${lua}\nend`,
  )
  return `local S = {}\n${functions.join('\n')}\n${LOOP}`
}

export class RedisTurn implements RedisTurnBatch {
  private script: Script | undefined
  private readonly names: Record<string, string> = {}
  private readonly flushers: (() => void)[] = []
  private sections: Section[] = []
  private scheduled = false

  /** `sections`: the Lua of each kind of batched work, by the name add() is given; more come with define(). */
  constructor(
    private readonly redis: Redis,
    sections: Readonly<Record<string, string>> = {},
    private readonly command = 'sluiceTurn',
  ) {
    this.define(sections)
  }

  /** Adds sections; the script is defined again on the connection (its plugins do so once, when they open). */
  define(sections: Readonly<Record<string, string>>): void {
    let changed = false
    for (const [name, lua] of Object.entries(sections)) {
      if (this.names[name] === lua) continue
      if (name in this.names) throw new Error(`the turn's script already has a section ${name}, with other Lua`)
      this.names[name] = lua
      changed = true
    }
    if (changed) this.script = defineScript(this.redis, this.command, turnScript(this.names))
  }

  /**
   * A flusher runs at the end of each turn that asked for it (wake), in the order flushers were
   * added, and adds its batches with add(). The returned function removes it.
   */
  onFlush(flusher: () => void): () => void {
    this.flushers.push(flusher)
    return () => {
      const at = this.flushers.indexOf(flusher)
      if (at >= 0) this.flushers.splice(at, 1)
    }
  }

  /** Asks for this turn's flush (once a turn, however often it is asked). */
  wake(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => void this.flush())
  }

  /** One section of this turn's call; only from a flusher. Resolves with the section's reply. */
  add(name: string, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    if (!(name in this.names)) throw new Error(`no section ${name} in this turn's script`)
    return new Promise((resolve, reject) => this.sections.push({ name, keys, args, resolve, reject }))
  }

  /** Runs the flushers and sends what they added, now (the turn's end, or a close). */
  async flush(): Promise<void> {
    this.scheduled = false
    for (const f of this.flushers) f()
    const sections = this.sections
    this.sections = []
    if (sections.length === 0) return
    const keys: string[] = []
    const header: (string | number)[] = [sections.length]
    const args: (string | number)[] = []
    for (const s of sections) {
      header.push(s.name, s.keys.length, s.args.length)
      for (const key of s.keys) keys.push(key)
      for (const arg of s.args) args.push(arg)
    }
    let replies: [number, unknown][]
    try {
      replies = (await this.script!(keys.length, ...keys, ...header, ...args)) as [number, unknown][]
    } catch (err) {
      for (const s of sections) s.reject(err)
      return
    }
    sections.forEach((s, i) => {
      const [ok, reply] = replies[i] ?? [0, 'no reply for this section']
      if (ok === 1) s.resolve(reply)
      else s.reject(new Error(String(reply)))
    })
  }
}
