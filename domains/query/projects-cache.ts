/**
 * The in-memory view of the projects table, so that `authenticate` and `project` on the request
 * path never touch the store. Changes made in this process apply at once (the view reloads right
 * after the write); changes made by other replicas are seen within `refreshMs`, by polling the
 * table's version number, as the key cache does (keys/stored-keys.ts).
 */
import type { Logger, Stores, TableSnapshot } from '../../kernel/contract/index.js'
import { DigestIndex } from '../../protocols/credentials/secrets.js'
import type { ProjectsSnapshot, ProjectsTable, StoredProject, StoredToken } from './projects-table.js'

export class ProjectsCache {
  private projectsById = new Map<string, StoredProject>()
  private tokensByProject = new Map<string, StoredToken[]>()
  private index = new DigestIndex<StoredToken>()
  private readonly polled: TableSnapshot

  private constructor(
    readonly table: ProjectsTable,
    options: { stores: Stores; refreshMs: number; log: Logger },
  ) {
    const { refreshMs, log } = options
    this.polled = options.stores.snapshot<ProjectsSnapshot>(table, (snapshot) => this.apply(snapshot), {
      refreshMs,
      log,
      what: 'project store',
    })
  }

  static async open(
    table: ProjectsTable,
    options: { stores: Stores; refreshMs: number; log: Logger },
  ): Promise<ProjectsCache> {
    const cache = new ProjectsCache(table, options)
    await cache.reload()
    return cache
  }

  project(id: string): StoredProject | undefined {
    return this.projectsById.get(id)
  }

  projects(): IterableIterator<StoredProject> {
    return this.projectsById.values()
  }

  tokens(projectId: string): readonly StoredToken[] {
    return this.tokensByProject.get(projectId) ?? []
  }

  /** The stored token whose digest is this one, compared in constant time. */
  findByDigest(digest: Buffer): StoredToken | undefined {
    return this.index.find(digest)
  }

  /** Reloads now (after a write of ours, so that the next request sees it). */
  reload(): Promise<void> {
    return this.polled.reload()
  }

  private apply(snapshot: ProjectsSnapshot): void {
    const tokensByProject = new Map<string, StoredToken[]>()
    const index = new DigestIndex<StoredToken>()
    for (const t of snapshot.tokens) {
      const own = tokensByProject.get(t.projectId)
      if (own) own.push(t)
      else tokensByProject.set(t.projectId, [t])
      index.add(Buffer.from(t.digest, 'hex'), t)
    }
    this.projectsById = new Map(snapshot.projects.map((p) => [p.id, p]))
    this.tokensByProject = tokensByProject
    this.index = index
  }

  close(): void {
    this.polled.close()
  }
}
