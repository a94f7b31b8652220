/**
 * The shared services, made once per process (not per generation), so that budgets, queues,
 * buffered records and the key cache survive hot reloads; closed on shutdown, after the last
 * request, so that buffered records are flushed. Which implementation runs is read from
 * `stores:` in server.yaml (or SLUICE_POSTGRES_URL / SLUICE_REDIS_URL) at start only.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Deployment } from '../kernel/contract/kernel.js'
import type { Logger } from '../kernel/contract/log.js'
import type { Store } from '../kernel/services/stores/store.js'
import type { SharedState } from '../kernel/services/state/state.js'
import { openSqliteStore } from '../kernel/services/stores/sqlite-store.js'
import { RecordWriter } from '../kernel/services/records/records.js'
import { ResponseKeeper } from '../plugins/openai-responses/store/kept-responses.js'
import { StoredKeys } from '../kernel/services/keys/stored-keys.js'
import { MetricsRegistry } from '../kernel/services/metrics/metrics.js'
import { metricsAccess } from '../kernel/services/metrics/metrics-access.js'
import { memoryState, redactUrl } from '../kernel/services/state/open-state.js'
import { RecordJournal } from '../kernel/services/records/journal.js'
import { reconcileLag, startReconciler } from '../plugins/budget/ledger/reconcile.js'
import { DEFAULT_VECTOR_WINDOWS, KnowledgeBase, type KnowledgeSettings } from '../domains/query/knowledge/knowledge-base.js'
import { openSqliteKnowledge } from '../domains/query/knowledge/sqlite-knowledge.js'
import type { KnowledgeStore } from '../domains/query/knowledge/store.js'
import { openQueryServices } from '../domains/query/open-query.js'
import type { QueryServices } from '../domains/query/query-services.js'
import { querySettings } from '../domains/query/query-settings.js'
import { RequestObserver } from '../kernel/services/observe/request-observer.js'

export interface KernelServices {
  readonly store: Store
  readonly storedKeys: StoredKeys
  readonly records: RecordWriter
  readonly responses: ResponseKeeper
  readonly state: SharedState
  readonly metrics: MetricsRegistry
  readonly knowledge: KnowledgeBase
  readonly query: QueryServices
  /** Request series and the access log, told of every request's end. */
  readonly observer: RequestObserver
  close(): Promise<void>
}

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
    reconcileEveryMs: stores.reconcile_every_ms ?? 300_000,
    journal: stores.records_journal ?? true,
    responsesRetentionDays: stores.responses_retention_days ?? 30,
    responsesPerKey: stores.responses_per_key ?? 10000,
  }
}

/** server.yaml `knowledge:` with its defaults. */
export function knowledgeSettings(k: Deployment['server']['knowledge']): KnowledgeSettings {
  return {
    embeddingModel: k?.embedding_model ?? 'use-lite',
    embeddingKey: k?.embedding_key ?? 'demo',
    chunking: { maxTokens: k?.chunking?.max_tokens ?? 512, overlapTokens: k?.chunking?.overlap_tokens ?? 64 },
    pdf: { maxPages: k?.pdf?.max_pages ?? 2000, timeoutMs: k?.pdf?.timeout_ms ?? 60_000 },
    vectorWindows: { maxTokens: k?.vector_windows?.max_tokens ?? DEFAULT_VECTOR_WINDOWS.maxTokens },
  }
}

/** The knowledge store beside the records: the same PostgreSQL when configured, else `knowledge.db`. */
async function openKnowledgeStore(settings: ReturnType<typeof storeSettings>, dataDir: string, log: Logger): Promise<KnowledgeStore> {
  const line = (l: string) => log.info(l)
  if (!settings.postgresUrl) return openSqliteKnowledge(dataDir, line)
  try {
    const { openPostgresKnowledge } = await import('../domains/query/knowledge/postgres-knowledge.js')
    return await openPostgresKnowledge({ url: settings.postgresUrl, schema: settings.postgresSchema, log: line })
  } catch (err) {
    throw new Error(`cannot open the knowledge store in PostgreSQL at ${redactUrl(settings.postgresUrl)}: ${(err as Error).message}`)
  }
}

/** config/projects.yaml when the deployment has one. */
function projectsFile(deployment: Deployment): unknown {
  return fs.existsSync(path.join(deployment.configDir, 'projects.yaml')) ? deployment.file('projects.yaml') : undefined
}

export async function openServices(deployment: Deployment, options: { env: NodeJS.ProcessEnv; log: Logger; now?: () => number; announce?: (line: string) => void }): Promise<KernelServices> {
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
    const chunking = knowledgeSettings(deployment.server.knowledge)
    if (chunking.chunking.overlapTokens > chunking.chunking.maxTokens / 2) {
      throw new Error(`server.yaml knowledge.chunking.overlap_tokens (${chunking.chunking.overlapTokens}) must be at most half of max_tokens (${chunking.chunking.maxTokens})`)
    }
    const knowledge = new KnowledgeBase(await openKnowledgeStore(settings, deployment.dataDir, log), chunking)
    opened.push(knowledge)
    const query = await openQueryServices({
      dataDir: deployment.dataDir,
      configDir: deployment.configDir,
      projectsFile: projectsFile(deployment),
      postgresUrl: settings.postgresUrl,
      postgresSchema: settings.postgresSchema,
      refreshMs: settings.keysRefreshMs,
      env: options.env,
      log,
      now: options.now ?? Date.now,
      announce: options.announce,
      settings: querySettings(deployment.server.query),
    })
    opened.push(query)
    // The embedded store's journal: what a crash left in it reaches the store before anything reads it.
    let journal: RecordJournal | undefined
    if (store.kind === 'sqlite' && settings.journal) {
      const opened = await RecordJournal.open(path.join(deployment.dataDir, 'records-journal'), store.records)
      journal = opened.journal
      if (opened.replayed > 0) log.warn('usage records replayed from the journal after an unclean stop', { records: opened.replayed })
    }
    const state = settings.redisUrl
      ? await (await import('../kernel/services/state/redis-state.js')).redisState({ url: settings.redisUrl, prefix: settings.redisPrefix, leaseMs: settings.leaseMs, log })
      : memoryState(options.now)
    opened.push(state)
    const storedKeys = await StoredKeys.open(store.keys, { refreshMs: settings.keysRefreshMs, log })
    const records = new RecordWriter(store.records, { flushMs: settings.flushMs, batch: settings.batch, retentionDays: settings.retentionDays, log, metrics, now: options.now, journal })
    const reconciler = startReconciler({
      ledger: state.ledger,
      records,
      everyMs: settings.reconcileEveryMs,
      lagMs: reconcileLag(deployment.server.limits.request_timeout_ms, settings.flushMs),
      now: options.now ?? Date.now,
      log,
    })
    const responses = new ResponseKeeper(store.responses, { retentionDays: settings.responsesRetentionDays, maxPerKey: settings.responsesPerKey, log, now: options.now })
    const access = deployment.server.access_log
    const observer = RequestObserver.open(
      metrics,
      access?.enabled === false ? undefined : { to: access?.to ?? 'stdout', flushMs: access?.flush_ms ?? 250, maxBufferedBytes: access?.max_buffered_bytes ?? 8_388_608 },
      deployment.dataDir,
      options.now ?? Date.now,
    )
    log.info('stores opened', { records: store.kind, state: state.kind })
    return {
      store,
      storedKeys,
      records,
      responses,
      state,
      metrics,
      knowledge,
      query,
      observer,
      async close() {
        reconciler.stop()
        await observer.close()
        storedKeys.close()
        responses.close()
        await records.close()
        await state.close()
        await store.close()
        await knowledge.close()
        await query.close()
      },
    }
  } catch (err) {
    for (const o of opened.reverse()) await o.close().catch(() => undefined)
    throw err
  }
}
