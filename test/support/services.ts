/**
 * The real PostgreSQL and Redis of the development machines, for the suites that run a store
 * against both of its implementations. Each is probed once, when this module is first imported
 * (before any suite is defined), so a suite can be registered as it will be counted: see
 * needs-server.ts. SLUICE_TEST_POSTGRES_URL / SLUICE_TEST_REDIS_URL point the tests elsewhere
 * (a closed port shows what a machine without the server sees).
 */
import net from 'node:net'
import crypto from 'node:crypto'

export const POSTGRES_URL = process.env.SLUICE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
export const REDIS_URL = process.env.SLUICE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

export type Server = 'postgres' | 'redis'

const URLS: Record<Server, string> = { postgres: POSTGRES_URL, redis: REDIS_URL }
const NAMES: Record<Server, string> = { postgres: 'PostgreSQL', redis: 'Redis' }
const PORTS: Record<Server, number> = { postgres: 5432, redis: 6379 }

function hostAndPort(server: Server): { host: string; port: number } {
  const u = new URL(URLS[server])
  return { host: u.hostname, port: Number(u.port || PORTS[server]) }
}

/** Where the tests look for a server, as a person says it: "PostgreSQL at 127.0.0.1:5432". */
export function serverAt(server: Server): string {
  const { host, port } = hostAndPort(server)
  return `${NAMES[server]} at ${host}:${port}`
}

/** True when a TCP connection to the server opens within a second. */
function connects(server: Server): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(hostAndPort(server))
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(1000, () => done(false))
    socket.once('connect', () => done(true))
    socket.once('error', () => done(false))
  })
}

const [postgresUp, redisUp] = await Promise.all([connects('postgres'), connects('redis')])

/** Whether each server answered when the run started. */
export const answered: Readonly<Record<Server, boolean>> = { postgres: postgresUp, redis: redisUp }

/** A fresh PostgreSQL schema or Redis prefix per suite run, so runs never see each other's data. */
export function uniqueName(base: string): string {
  return `${base}_${crypto.randomBytes(4).toString('hex')}`
}
