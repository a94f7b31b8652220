/**
 * Domains: a product's shared logic (the Query service's knowledge base, projects, history),
 * opened once per process by the composition root and reached by plugins as
 * `kernel.domains.<name>`. A domain adds its type to `Domains` by declaration merging, as
 * plugins add exchange slots, so the kernel never names a product:
 *
 *   declare module 'sluice/contract' { interface Domains { query: QueryDomain } }
 */
import type { Deployment, Domains } from './kernel.js'
import type { Logger } from './log.js'
import type { Stores } from './stores.js'

/** What a domain is given when it opens: the deployment and the process's context. */
export interface DomainContext {
  readonly config: Deployment
  readonly log: Logger
  readonly env: NodeJS.ProcessEnv
  now(): number
  /**
   * A demo secret's digest (a project's demo token): from its environment variable, or generated
   * at first start, shown once (the start banner) and kept only as its hash in the data folder.
   */
  demoSecret(demo: DemoSecret): Buffer
  /** The scale-out database when configured (`stores.postgres_url`), else the embedded SQLite files. */
  readonly postgres?: { readonly url: string; readonly schema: string }
  /** The database seam (`kernel.stores`) for the domain's own tables. */
  readonly stores: Stores
  /** How often caches of stored tables look for other replicas' changes (`stores.keys_refresh_ms`). */
  readonly refreshMs: number
}

/** A secret made at first start when none is chosen: the key store's demo key, a project's demo token. */
export interface DemoSecret {
  readonly id: string
  /** What the announcement calls it ("Demo API key"). */
  readonly label: string
  /** The variable that chooses the secret. */
  readonly envVar: string
  /** The file in the data folder that keeps its hash. */
  readonly fileName: string
  /** Of a generated secret (newSecret's default when absent). */
  readonly prefix?: string
}

export interface DomainDefinition<Name extends keyof Domains = keyof Domains> {
  readonly name: Name
  /** Once per process, before the first pipelines load; the value lives until shutdown. */
  open(context: DomainContext): Promise<Domains[Name] & { close(): Promise<void> }>
}

/** Identity function that types a domain by its name's entry in `Domains`. */
export function defineDomain<Name extends keyof Domains>(definition: DomainDefinition<Name>): DomainDefinition<Name> {
  return definition
}
