/**
 * The real PostgreSQL and Redis of the development machines, for the suites that run a store
 * against both of its implementations. Under CI=true an unreachable server fails the suite;
 * elsewhere the suite is skipped with the reason printed.
 */
import net from 'node:net'
import crypto from 'node:crypto'

export const POSTGRES_URL = process.env.SLUICE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
export const REDIS_URL = process.env.SLUICE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

function reachable(url: string): Promise<boolean> {
  const u = new URL(url)
  const port = Number(u.port || (u.protocol.startsWith('redis') ? 6379 : 5432))
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port })
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(1000, () => done(false))
    socket.once('connect', () => done(true))
    socket.once('error', () => done(false))
  })
}

const checked = new Map<string, Promise<boolean>>()

/**
 * True when the server answers. False (with the reason printed) when it does not and we are
 * not in CI; in CI it throws, so the suite fails instead of skipping.
 */
export async function available(what: 'postgres' | 'redis'): Promise<boolean> {
  const url = what === 'postgres' ? POSTGRES_URL : REDIS_URL
  let pending = checked.get(url)
  if (!pending) {
    pending = reachable(url)
    checked.set(url, pending)
  }
  if (await pending) return true
  if (process.env.CI === 'true') throw new Error(`${what} is not reachable at ${url}, and CI=true: the scale-out store tests must run`)
  process.stdout.write(`\n  (skipped: ${what} is not reachable at ${url}; start it, or run under CI=true to make this a failure)\n`)
  return false
}

/** A fresh PostgreSQL schema or Redis prefix per suite run, so runs never see each other's data. */
export function uniqueName(base: string): string {
  return `${base}_${crypto.randomBytes(4).toString('hex')}`
}
