/** PostgreSQL's CPU as the scale-out benches count it, from /proc (the server runs on this machine). */
import fs from 'node:fs'
import type pg from 'pg'
import { processCpuMs } from './children.js'

/**
 * CPU time (ms) of PostgreSQL's processes so far: the backends serving one target (by
 * application_name; a backend that exited meanwhile is not counted), and every process named
 * postgres on this machine (the WAL writer and checkpointer too; other users of the server as well).
 */
export async function postgresCpu(
  admin: pg.Client,
  application: string,
): Promise<{ backends: Map<number, number>; all: number }> {
  const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
    application,
  ])
  const backends = new Map<number, number>()
  for (const { pid } of rows) {
    const ms = processCpuMs(pid)
    if (ms !== undefined) backends.set(pid, ms)
  }
  let all = 0
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') all += processCpuMs(Number(entry)) ?? 0
    } catch {
      // Gone meanwhile.
    }
  }
  return { backends, all }
}
