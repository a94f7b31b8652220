// PLACEHOLDER for the admin API's projects (being built on branch query-projects): the seed of
// config/projects.yaml only.
import { GatewayError } from '../../errors.js'
import type { ProjectAdmin, Projects } from './projects.js'
import type { QueryStoreOptions } from './query-services.js'
import { findSeedToken, readProjectSeed } from './project-seed.js'

export async function openProjects(options: QueryStoreOptions): Promise<Projects & ProjectAdmin & { close(): Promise<void> }> {
  const seed = readProjectSeed(options.projectsFile, options)
  const none = () => Promise.reject(new GatewayError(501, 'project changes are not available yet'))
  return {
    authenticate(secret) {
      const t = findSeedToken(seed.tokens, secret)
      const project = t && seed.projects.get(t.token.projectId)
      return t && project ? { token: t.token, project } : undefined
    },
    project: (id) => seed.projects.get(id),
    projects: () => [...seed.projects.values()],
    tokens: (id) => seed.tokens.filter((t) => t.token.projectId === id).map((t) => t.token),
    putProject: none,
    deleteProject: none,
    createToken: none,
    deleteToken: none,
    close: async () => {},
  }
}
