/**
 * The projects of config/projects.yaml, read once at start: validated (a bad file stops the
 * boot naming the place), each token's digest from its `hash` or, for a demo token, from
 * SLUICE_DEMO_DEV_TOKEN / SLUICE_DEMO_SERVICE_TOKEN or the data folder.
 */
import { describeErrors, validatorFor } from '../../kernel/contract/index.js'
import { projectsFileSchema, type ProjectsFile } from '../../schemas/projects.schema.js'
import type { QueryDefaults } from '../../schemas/query-request.schema.js'
import { parseHash } from '../../protocols/credentials/secrets.js'
import type { Project, ProjectToken, TokenKind } from './projects.js'
import type { QueryStoreOptions } from './query-services.js'

/** What a Query service token's secret starts with (a key's is `sk-sluice-`). */
export const TOKEN_PREFIX = 'qt-'

const DEMO_ENV: Record<TokenKind, string> = { developer: 'SLUICE_DEMO_DEV_TOKEN', service: 'SLUICE_DEMO_SERVICE_TOKEN' }

export interface SeedToken {
  readonly token: ProjectToken
  readonly digest: Buffer
}

export interface ProjectSeed {
  readonly projects: ReadonlyMap<string, Project>
  readonly tokens: readonly SeedToken[]
}

export function readProjectSeed(file: unknown, options: Pick<QueryStoreOptions, 'demoSecret'>): ProjectSeed {
  const doc = structuredClone(file ?? {}) as ProjectsFile
  const validate = validatorFor(projectsFileSchema)
  if (!validate(doc)) throw new Error(`config/projects.yaml: ${describeErrors(validate.errors)}`)
  const projects = new Map<string, Project>()
  const tokens: SeedToken[] = []
  const ids = new Set<string>()
  for (const [id, p] of Object.entries(doc.projects ?? {})) {
    projects.set(id, {
      id,
      keyId: p.key,
      defaults: (p.defaults ?? {}) as QueryDefaults,
      compareModels: p.compare_models ?? [],
      source: 'config',
    })
    for (const t of p.tokens ?? []) {
      if (ids.has(t.id)) throw new Error(`config/projects.yaml: token id ${t.id} is used twice`)
      ids.add(t.id)
      let digest: Buffer
      if (t.hash) digest = parseHash(t.hash)
      else if (t.demo) {
        const label = `Demo ${t.kind} token of project ${id}`
        digest = options.demoSecret({
          id: t.id,
          label,
          envVar: DEMO_ENV[t.kind],
          fileName: `demo-token-${t.id}.json`,
          prefix: TOKEN_PREFIX,
        })
      } else
        throw new Error(
          `config/projects.yaml: token ${t.id} of project ${id} needs a hash (sha256:<hex>) or demo: true`,
        )
      tokens.push({ token: { id: t.id, projectId: id, kind: t.kind, source: 'config' }, digest })
    }
  }
  return { projects, tokens }
}
