/** The Query service's stores, opened once per process beside the others (open.ts). */
import type { ProjectAdmin, Projects } from './projects.js'
import type { ConversationHistory } from './history.js'
import type { ChatUploads } from './uploads.js'
import type { DomainContext } from '../../kernel/contract/index.js'

export interface QueryServices {
  readonly projects: Projects & ProjectAdmin
  readonly history: ConversationHistory
  readonly uploads: ChatUploads
}

/** Where the Query service's stores live: PostgreSQL when configured, else SQLite in the data folder. */
export interface QueryStoreOptions {
  /** The kernel's database seam: the history and upload tables live there. */
  readonly stores: import('../../kernel/contract/index.js').Stores
  readonly dataDir: string
  readonly configDir: string
  /** config/projects.yaml, parsed (undefined when there is none). */
  readonly projectsFile: unknown
  readonly postgresUrl?: string
  readonly postgresSchema: string
  /** How often the project cache checks the store for changes made by other replicas (`stores.keys_refresh_ms`; default 2000). */
  readonly refreshMs?: number
  readonly env: NodeJS.ProcessEnv
  readonly log: import('../../kernel/contract/index.js').Logger
  readonly now: () => number
  /** server.yaml `query:` (history retention and cap, upload limits, purge period); defaults when absent. */
  readonly settings?: import('./query-settings.js').QuerySettings
  /** A demo token's digest, made and shown once at first start (the domain's context). */
  readonly demoSecret: DomainContext['demoSecret']
}
