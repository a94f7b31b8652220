/** The scale-out benches' gateway config: the bench key with budgets, optionally on Redis and PostgreSQL. */
import fs from 'node:fs'
import path from 'node:path'
import { dump, load } from 'js-yaml'
import { gatewayConfigFor } from './bench-setup.js'

/**
 * The PostgreSQL URL a scale-out target connects with: its own application_name, so that its
 * backends can be told apart in pg_stat_activity (and their CPU read from /proc).
 */
export function postgresUrlFor(postgres: string, prefix: string): string {
  const url = new URL(postgres)
  url.searchParams.set('application_name', `sluice_bench_${prefix}`)
  return url.toString()
}

/** The bench config with budgets on the bench key's group and key, and optionally Redis + PostgreSQL. */
export function scaleOutConfig(
  simUrl: string,
  key: string,
  stores?: { redis: string; postgres: string; prefix: string },
): string {
  const dir = gatewayConfigFor(simUrl, key, { connections: 1000, capacity: 1000 })
  const keysFile = path.join(dir, 'keys.yaml')
  const keys = load(fs.readFileSync(keysFile, 'utf8')) as {
    groups: Record<string, Record<string, unknown>>
    keys: Record<string, unknown>[]
  }
  Object.assign(keys.groups.bench!, { budget: { amount: 1e9, term: 'month' }, tokens_per_minute: 1e12 })
  Object.assign(keys.keys[0]!, { budget: { amount: 1e9, term: 'month' } })
  fs.writeFileSync(keysFile, dump(keys))
  const serverFile = path.join(dir, 'server.yaml')
  const server = load(fs.readFileSync(serverFile, 'utf8')) as Record<string, Record<string, unknown>>
  if (stores)
    Object.assign(server.stores!, {
      redis_url: stores.redis,
      redis_prefix: stores.prefix,
      postgres_url: postgresUrlFor(stores.postgres, stores.prefix),
      postgres_schema: `bench_${stores.prefix}${process.pid}`,
    })
  fs.writeFileSync(serverFile, dump(server))
  return dir
}
