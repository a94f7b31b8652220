/**
 * The shared services, made once per process (not per generation), so that the stores, Redis,
 * buffered records and the key cache survive hot reloads (plugins' own state, budgets and queues
 * included, lives in their `open()` states: kernel/run/plugin-states.ts); closed on shutdown, after the last
 * request, so that buffered records are flushed. Which implementation runs is read from
 * `stores:` in server.yaml (or SLUICE_POSTGRES_URL / SLUICE_REDIS_URL) at start only.
 */
import path from 'node:path'
import type { Deployment } from '../kernel/contract/kernel.js'
import type { DomainDefinition } from '../kernel/contract/domain.js'
import type { Domains } from '../kernel/contract/kernel.js'
import type { Logger } from '../kernel/contract/log.js'
import { demoSecretDigest, type Announce } from '../kernel/services/keys/demo-secret.js'
import type { Store } from '../kernel/services/stores/store.js'
import { openSqliteStore } from '../kernel/services/stores/sqlite-store.js'
import { RecordWriter } from '../kernel/services/records/records.js'
import { StoredKeys } from '../kernel/services/keys/stored-keys.js'
import { MetricsRegistry } from '../kernel/services/metrics/metrics.js'
import { metricsAccess } from './metrics-access.js'
import { redactUrl } from '../kernel/contract/log.js'
import { storesAccess } from '../kernel/services/stores/stores-access.js'
import { QueueLoadRegistry } from '../kernel/services/load/queue-load.js'
import { RecordJournal } from '../kernel/services/records/journal.js'
import { RequestObserver } from '../kernel/services/observe/request-observer.js'
import { trustedProxies } from '../protocols/http/forwarded.js'
import { tracesWanted } from './traces-wanted.js'
import type { KernelServices } from '../kernel/services/kernel-services.js'

export type StoresConfig = NonNullable<Deployment['server']['stores']>

/** The stores as configured, the environment winning over server.yaml. */
export function storeSettings(stores: StoresConfig, env: NodeJS.ProcessEnv) {
  return {
    postgresUrl: env.SLUICE_POSTGRES_URL || stores.postgres_url,
    postgresSchema: stores.postgres_schema ?? 'public',
    redisUrl: env.SLUICE_REDIS_URL || stores.redis_url,
    redisPrefix: stores.redis_prefix ?? 'sluice:',
    retentionDays: stores.records_retention_days ?? 180,
    flushMs: stores.records_flush_ms ?? 1000,
    batch: stores.records_batch ?? 500,
    keysRefreshMs: stores.keys_refresh_ms ?? 2000,
    leaseMs: stores.lease_ms ?? 10_000,
    journal: stores.records_journal ?? true,
  }
}

export async function openServices(
  deployment: Deployment,
  options: {
    env: NodeJS.ProcessEnv
    log: Logger
    now?: () => number
    announce?: Announce
    domains?: readonly DomainDefinition[]
  },
): Promise<KernelServices> {
  const settings = storeSettings(deployment.server.stores ?? {}, options.env)
  const { log } = options
  const metrics = new MetricsRegistry(metricsAccess(deployment.server.metrics, options.env))
  const opened: { close(): Promise<void> }[] = []
  try {
    let store: Store
    if (settings.postgresUrl) {
      try {
        // Loaded only when configured: pg is not needed by the embedded default.
        const { openPostgresStore } = await import('../kernel/services/stores/postgres-store.js')
        store = await openPostgresStore({ url: settings.postgresUrl, schema: settings.postgresSchema })
      } catch (err) {
        throw new Error(`cannot open PostgreSQL at ${redactUrl(settings.postgresUrl)}: ${(err as Error).message}`)
      }
    } else {
      store = openSqliteStore(deployment.dataDir)
    }
    opened.push(store)
    const stores = storesAccess({
      dataDir: deployment.dataDir,
      postgres: settings.postgresUrl ? { url: settings.postgresUrl, schema: settings.postgresSchema } : undefined,
    })
    // Each domain opens once, after the stores it sits beside; closed in reverse at shutdown.
    const domains: Record<string, unknown> = {}
    for (const domain of options.domains ?? []) {
      const value = await domain.open({
        config: deployment,
        log,
        env: options.env,
        now: options.now ?? Date.now,
        demoSecret: (demo) =>
          demoSecretDigest(demo, { dataDir: deployment.dataDir, env: options.env, log, announce: options.announce }),
        postgres: settings.postgresUrl ? { url: settings.postgresUrl, schema: settings.postgresSchema } : undefined,
        refreshMs: settings.keysRefreshMs,
        stores,
      })
      domains[domain.name] = value
      opened.push(value)
    }
    // The embedded store's journal: what a crash left in it reaches the store before anything reads it.
    let journal: RecordJournal | undefined
    if (store.kind === 'sqlite' && settings.journal) {
      const opened = await RecordJournal.open(path.join(deployment.dataDir, 'records-journal'), store.records)
      journal = opened.journal
      if (opened.replayed > 0)
        log.warn('usage records replayed from the journal after an unclean stop', { records: opened.replayed })
    }
    // Loaded only when configured: ioredis is not needed by the embedded default.
    const redis = settings.redisUrl
      ? await (await import('../kernel/services/redis/redis-connection.js')).openRedis({
          url: settings.redisUrl,
          prefix: settings.redisPrefix,
          leaseMs: settings.leaseMs,
          log,
        })
      : undefined
    if (redis) opened.push(redis)
    const storedKeys = await StoredKeys.open(store.keys, { refreshMs: settings.keysRefreshMs, log })
    const records = new RecordWriter(store.records, {
      flushMs: settings.flushMs,
      batch: settings.batch,
      retentionDays: settings.retentionDays,
      log,
      metrics,
      now: options.now,
      journal,
    })
    const access = deployment.server.access_log
    // Loaded only when an OTLP endpoint is set: the OpenTelemetry SDK is not needed without a collector.
    // The SDK reads its variables from the process environment, so they are looked for there.
    const traces = tracesWanted(process.env)
      ? await (await import('./otel-traces.js')).openOtelTraces(process.env, log)
      : undefined
    if (traces) opened.push(traces)
    const observer = RequestObserver.open(
      metrics,
      access?.enabled === false
        ? undefined
        : {
            to: access?.to ?? 'stdout',
            flushMs: access?.flush_ms ?? 250,
            maxBufferedBytes: access?.max_buffered_bytes ?? 8_388_608,
          },
      deployment.dataDir,
      options.now ?? Date.now,
      { traces, trustedProxies: trustedProxies(deployment.server.trusted_proxies) },
    )
    log.info('stores opened', { records: store.kind, state: redis ? 'redis' : 'memory' })
    return {
      store,
      storedKeys,
      records,
      redis,
      stores,
      load: new QueueLoadRegistry(),
      metrics,
      domains: domains as unknown as Domains,
      observer,
      async close() {
        await observer.close()
        storedKeys.close()
        await records.close()
        await redis?.close()
        await store.close()
        for (const d of Object.values(domains).reverse()) await (d as { close(): Promise<void> }).close()
      },
    }
  } catch (err) {
    for (const o of opened.reverse()) await o.close().catch(() => undefined)
    throw err
  }
}
