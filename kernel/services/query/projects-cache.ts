/**
 * The in-memory view of the projects table, so that `authenticate` and `project` on the request
 * path never touch the store. Changes made in this process apply at once (the view reloads right
 * after the write); changes made by other replicas are seen within `refreshMs`, by polling the
 * table's version number, as the key cache does (keys/stored-keys.ts).
 */
import type { Logger } from '../../log.js'
import { describeCause } from '../../log.js'
import { DigestIndex } from '../keys/stored-keys.js'
import type { ProjectsTable, StoredProject, StoredToken } from './projects-table.js'

export class ProjectsCache {
  private version = -1
  private projectsById = new Map<string, StoredProject>()
  private tokensByProject = new Map<string, StoredToken[]>()
  private index = new DigestIndex<StoredToken>()
  private refreshing: Promise<void> | undefined
  private readonly timer: NodeJS.Timeout

  private constructor(readonly table: ProjectsTable, private readonly log: Logger, refreshMs: number) {
    this.timer = setInterval(() => void this.poll(), refreshMs)
    this.timer.unref()
  }

  static async open(table: ProjectsTable, options: { refreshMs: number; log: Logger }): Promise<ProjectsCache> {
    const cache = new ProjectsCache(table, options.log, options.refreshMs)
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
  async reload(): Promise<void> {
    while (this.refreshing) await this.refreshing
    this.refreshing = (async () => {
      try {
        const snapshot = await this.table.load()
        const tokensByProject = new Map<string, StoredToken[]>()
        const index = new DigestIndex<StoredToken>()
        for (const t of snapshot.tokens) {
          tokensByProject.set(t.projectId, [...(tokensByProject.get(t.projectId) ?? []), t])
          index.add(Buffer.from(t.digest, 'hex'), t)
        }
        this.projectsById = new Map(snapshot.projects.map((p) => [p.id, p]))
        this.tokensByProject = tokensByProject
        this.index = index
        this.version = snapshot.version
      } finally {
        this.refreshing = undefined
      }
    })()
    await this.refreshing
  }

  private async poll(): Promise<void> {
    try {
      if ((await this.table.version()) !== this.version) await this.reload()
    } catch (err) {
      // The view keeps serving what it has; the next poll tries again.
      this.log.warn('project store refresh failed', { cause: describeCause(err) })
    }
  }

  close(): void {
    clearInterval(this.timer)
  }
}
