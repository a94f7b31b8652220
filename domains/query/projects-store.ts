/**
 * The Query service's projects and tokens: config/projects.yaml (the static seed, read-only
 * here) overlaid by the projects and tokens made through the admin API, which live in the
 * projects table (SQLite or PostgreSQL). Lookups on the request path are in memory
 * (ProjectsCache); a write reloads the cache at once, other replicas within `refreshMs`.
 *
 * A project of config/projects.yaml cannot be replaced or deleted here (409): the file is the
 * operator's, and a store copy that silently wins would make the file lie. Tokens may be added
 * to any project, a config project's included; the file's own tokens are read-only too.
 */
import crypto from 'node:crypto'
import { GatewayError, describeErrors, validatorFor } from '../../kernel/contract/index.js'
import { PROJECT_ID } from '../../schemas/projects.schema.js'
import type { QueryDefaults } from '../../schemas/query-request.schema.js'
import { DigestIndex, hashSecret, newSecret } from '../../protocols/credentials/secrets.js'
import type { Project, ProjectAdmin, ProjectToken, Projects, TokenKind } from './projects.js'
import type { QueryStoreOptions } from './query-services.js'
import { readProjectSeed, TOKEN_PREFIX, type SeedToken } from './project-seed.js'
import { projectBodySchema, type ProjectBody } from './project-body.js'
import { ProjectsCache } from './projects-cache.js'
import type { ProjectsTable, StoredProject, StoredToken } from './projects-table.js'
import { openSqliteProjects } from './projects-sqlite.js'

const ID = new RegExp(PROJECT_ID)
const KINDS: readonly TokenKind[] = ['developer', 'service']

const invalid = (message: string) => new GatewayError(400, `invalid request: ${message}`, { code: 'invalid_request' })
const noProject = (id: string) => new GatewayError(404, `project ${id} does not exist`)
const readOnly = (what: string) =>
  new GatewayError(409, `${what} is defined in config/projects.yaml and is read-only through the admin API`)

function fromStore(p: StoredProject): Project {
  return {
    id: p.id,
    keyId: p.keyId,
    defaults: p.defaults,
    compareModels: p.compareModels,
    source: 'store',
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  }
}

function tokenFromStore(t: StoredToken): ProjectToken {
  return { id: t.id, projectId: t.projectId, kind: t.kind, createdAt: t.createdAt, source: 'store' }
}

async function openTable(options: QueryStoreOptions): Promise<ProjectsTable> {
  if (!options.postgresUrl) return openSqliteProjects(options.stores.sqlite('projects.db'))
  // Loaded only when configured: pg is not needed by the embedded default.
  const { openPostgresProjects } = await import('./projects-postgres.js')
  return openPostgresProjects({ url: options.postgresUrl, schema: options.postgresSchema })
}

export async function openProjects(
  options: QueryStoreOptions,
): Promise<Projects & ProjectAdmin & { close(): Promise<void> }> {
  const seed = readProjectSeed(options.projectsFile, options)
  const seedIndex = new DigestIndex<SeedToken>()
  for (const t of seed.tokens) seedIndex.add(t.digest, t)
  const table = await openTable(options)
  let cache: ProjectsCache
  try {
    cache = await ProjectsCache.open(table, {
      stores: options.stores,
      refreshMs: options.refreshMs ?? 2000,
      log: options.log,
    })
  } catch (err) {
    await table.close()
    throw err
  }
  for (const p of cache.projects()) {
    if (seed.projects.has(p.id))
      options.log.warn('a stored project has the id of a config/projects.yaml project; the file wins', {
        project: p.id,
      })
  }
  const validateBody = validatorFor(projectBodySchema)

  const project = (id: string): Project | undefined => {
    const fromFile = seed.projects.get(id)
    if (fromFile) return fromFile
    const stored = cache.project(id)
    return stored && fromStore(stored)
  }
  const requireProject = (id: string): Project => {
    const p = project(id)
    if (!p) throw noProject(id)
    return p
  }

  return {
    authenticate(secret) {
      const digest = hashSecret(secret)
      const stored = cache.findByDigest(digest)
      const token = stored ? tokenFromStore(stored) : seedIndex.find(digest)?.token
      const owner = token && project(token.projectId)
      return token && owner ? { token, project: owner } : undefined
    },
    project,
    projects() {
      const all = new Map<string, Project>()
      for (const p of cache.projects()) all.set(p.id, fromStore(p))
      for (const [id, p] of seed.projects) all.set(id, p)
      return [...all.values()].sort((a, b) => a.id.localeCompare(b.id))
    },
    tokens(projectId) {
      const fromFile = seed.tokens.filter((t) => t.token.projectId === projectId).map((t) => t.token)
      return [...fromFile, ...cache.tokens(projectId).map(tokenFromStore)]
    },

    async putProject(id, input, keyExists) {
      if (!ID.test(id)) throw invalid(`project id must match ${PROJECT_ID}`)
      if (seed.projects.has(id)) throw readOnly(`project ${id}`)
      const body = structuredClone(input ?? {})
      if (!validateBody(body)) throw invalid(describeErrors(validateBody.errors))
      const b = body as ProjectBody
      if (!keyExists(b.key)) throw invalid(`/key: key ${b.key} does not exist`)
      const now = options.now()
      const before = cache.project(id)
      await table.putProject({
        id,
        keyId: b.key,
        defaults: (b.defaults ?? {}) as QueryDefaults,
        compareModels: b.compare_models ?? [],
        createdAt: before?.createdAt ?? now,
        updatedAt: now,
      })
      await cache.reload()
      options.log.info(before ? 'project replaced' : 'project created', { project: id, key: b.key })
      return requireProject(id)
    },

    async deleteProject(id) {
      if (seed.projects.has(id)) throw readOnly(`project ${id}`)
      if (!cache.project(id)) throw noProject(id)
      await table.deleteProject(id)
      await cache.reload()
      options.log.info('project deleted', { project: id })
    },

    async createToken(projectId, kind) {
      requireProject(projectId)
      if (!KINDS.includes(kind)) throw invalid(`/kind: must be one of ${KINDS.join(', ')}`)
      const secret = newSecret(TOKEN_PREFIX)
      const row: StoredToken = {
        id: `tok-${crypto.randomBytes(8).toString('hex')}`,
        projectId,
        kind,
        digest: hashSecret(secret).toString('hex'),
        createdAt: options.now(),
      }
      await table.insertToken(row)
      await cache.reload()
      options.log.info('project token created', { project: projectId, token: row.id, kind })
      return { token: tokenFromStore(row), secret }
    },

    async deleteToken(projectId, tokenId) {
      requireProject(projectId)
      if (seed.tokens.some((t) => t.token.projectId === projectId && t.token.id === tokenId))
        throw readOnly(`token ${tokenId}`)
      if (!(await table.deleteToken(projectId, tokenId)))
        throw new GatewayError(404, `token ${tokenId} of project ${projectId} does not exist`)
      await cache.reload()
      options.log.info('project token deleted', { project: projectId, token: tokenId })
    },

    async close() {
      cache.close()
      await table.close()
    },
  }
}
