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
import type { Announce } from './secrets.js'

/** What a domain is given when it opens: the deployment and the process's context. */
export interface DomainContext {
  readonly config: Deployment
  readonly log: Logger
  readonly env: NodeJS.ProcessEnv
  now(): number
  /** Where a secret generated at first start is shown once (default: stdout). */
  announce?: Announce
  /** The scale-out database when configured (`stores.postgres_url`), else the embedded SQLite files. */
  readonly postgres?: { readonly url: string; readonly schema: string }
  /** The database seam (`kernel.stores`) for the domain's own tables. */
  readonly stores: Stores
  /** How often caches of stored tables look for other replicas' changes (`stores.keys_refresh_ms`). */
  readonly refreshMs: number
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
