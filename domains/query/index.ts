/**
 * The Query service's domain: the logic its plugins share (knowledge base, projects and tokens,
 * conversation history, chat uploads), opened once per process by the composition root and
 * reached as `kernel.domains.query`. Its stores sit beside the records: the PostgreSQL of
 * `stores.postgres_url` when configured, else SQLite files in the data folder.
 */
import fs from 'node:fs'
import path from 'node:path'
import { defineDomain, redactUrl, type Deployment, type DomainContext } from '../../kernel/contract/index.js'
import { DEFAULT_VECTOR_WINDOWS, KnowledgeBase, type KnowledgeSettings } from './knowledge/knowledge-base.js'
import { DEFAULT_READER_LIMITS, type ReaderLimits } from './knowledge/readers/limits.js'
import { openSqliteKnowledge } from './knowledge/sqlite-knowledge.js'
import type { KnowledgeStore } from './knowledge/store.js'
import { openQueryServices } from './open-query.js'
import type { QueryServices } from './query-services.js'
import { queryRoutes, querySettings, type QueryRoutes } from './query-settings.js'

export { queryRoutes, type QueryRoutes }

export interface QueryDomain extends QueryServices {
  /** Collections of projects, their documents and chunks. */
  readonly knowledge: KnowledgeBase
  readonly routes: QueryRoutes
  /** The first start's sample collection (sample-collection.ts), while it is being ingested: readiness waits for it. */
  sampleSeeding?: Promise<unknown>
}

declare module '../../kernel/contract/index.js' {
  interface Domains {
    query: QueryDomain
  }
}

/** server.yaml `knowledge:` with its defaults. */
export function knowledgeSettings(k: Deployment['server']['knowledge']): KnowledgeSettings {
  return {
    embeddingModel: k?.embedding_model ?? 'use-lite',
    embeddingKey: k?.embedding_key ?? 'demo',
    chunking: { maxTokens: k?.chunking?.max_tokens ?? 512, overlapTokens: k?.chunking?.overlap_tokens ?? 64 },
    readers: readerLimits(k),
    vectorWindows: { maxTokens: k?.vector_windows?.max_tokens ?? DEFAULT_VECTOR_WINDOWS.maxTokens },
    retrieval: k?.retrieval,
  }
}

/** `knowledge.readers` with its defaults; the older `knowledge.pdf` settings still count when `readers` leaves them out. */
export function readerLimits(k: Deployment['server']['knowledge']): ReaderLimits {
  const r = k?.readers
  const d = DEFAULT_READER_LIMITS
  return {
    maxDepth: r?.max_depth ?? d.maxDepth,
    maxTextBytes: r?.max_text_bytes ?? d.maxTextBytes,
    maxPages: r?.max_pages ?? k?.pdf?.max_pages ?? d.maxPages,
    maxInflatedBytes: r?.max_inflated_bytes ?? d.maxInflatedBytes,
    timeoutMs: r?.timeout_ms ?? k?.pdf?.timeout_ms ?? d.timeoutMs,
    memoryMb: r?.memory_mb ?? d.memoryMb,
    workers: r?.workers ?? d.workers,
  }
}

/** The knowledge store beside the records: the same PostgreSQL when configured, else `knowledge.db`. */
async function openKnowledgeStore(context: DomainContext): Promise<KnowledgeStore> {
  const line = (l: string) => context.log.info(l)
  if (!context.postgres) return openSqliteKnowledge(context.stores.sqlite('knowledge.db'), line)
  try {
    const { openPostgresKnowledge } = await import('./knowledge/postgres-knowledge.js')
    return await openPostgresKnowledge({ url: context.postgres.url, schema: context.postgres.schema, log: line })
  } catch (err) {
    throw new Error(
      `cannot open the knowledge store in PostgreSQL at ${redactUrl(context.postgres.url)}: ${(err as Error).message}`,
    )
  }
}

/** config/projects.yaml when the deployment has one. */
function projectsFile(deployment: Deployment): unknown {
  return fs.existsSync(path.join(deployment.configDir, 'projects.yaml')) ? deployment.file('projects.yaml') : undefined
}

export const queryDomain = defineDomain({
  name: 'query',
  async open(context) {
    const { config } = context
    const settings = knowledgeSettings(config.server.knowledge)
    const { maxTokens, overlapTokens } = settings.chunking
    if (overlapTokens > maxTokens / 2) {
      throw new Error(
        `server.yaml knowledge.chunking.overlap_tokens (${overlapTokens}) must be at most half of max_tokens (${maxTokens})`,
      )
    }
    const knowledge = new KnowledgeBase(await openKnowledgeStore(context), settings)
    try {
      const services = await openQueryServices({
        dataDir: config.dataDir,
        configDir: config.configDir,
        projectsFile: projectsFile(config),
        stores: context.stores,
        postgresUrl: context.postgres?.url,
        postgresSchema: context.postgres?.schema ?? 'public',
        refreshMs: context.refreshMs,
        env: context.env,
        log: context.log,
        now: () => context.now(),
        demoSecret: (demo) => context.demoSecret(demo),
        settings: querySettings(config.server.query),
      })
      return {
        knowledge,
        projects: services.projects,
        history: services.history,
        uploads: services.uploads,
        routes: queryRoutes(config.server.query),
        async close() {
          await knowledge.close()
          await services.close()
        },
      }
    } catch (err) {
      await knowledge.close()
      throw err
    }
  },
})
