/**
 * admin-projects: the Query service's projects and their tokens, as JSON. Lists projects (those
 * of config/projects.yaml and those made here), creates or replaces one (`{key, defaults,
 * compare_models}`), deletes one with its tokens, lists a project's tokens (ids and kinds, never
 * secrets or digests), makes a token (its secret is in that one response and nowhere else) and
 * deletes one. Changes live in the store and apply to the next request without a restart.
 * Projects and tokens of config/projects.yaml are read-only here (409).
 */
import {
  GatewayError,
  definePlugin,
  describeErrors,
  reply,
  validatorFor,
  type Exchange,
} from '../../kernel/contract/index.js'
import type { Project, ProjectToken } from '../../domains/query/projects.js'
import type { ProjectTokenView, ProjectView } from '../../schemas/admin-response.schema.js'
import { configSchema, createTokenBody, type AdminProjectsConfig, type CreateTokenBody } from './schema.js'

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString())

/** A project as the admin API shows it. */
function projectView(p: Project): ProjectView {
  return {
    id: p.id,
    key: p.keyId,
    defaults: p.defaults,
    compare_models: [...p.compareModels],
    source: p.source,
    created_at: iso(p.createdAt),
    updated_at: iso(p.updatedAt),
  }
}

/** A token as the admin API shows it: no secret, no digest. */
function tokenView(t: ProjectToken): ProjectTokenView {
  return { id: t.id, project: t.projectId, kind: t.kind, source: t.source, created_at: iso(t.createdAt) }
}

export default definePlugin({
  name: 'admin-projects',
  config: configSchema,
  requires: ['admin'],
  setup(config, kernel) {
    const validateToken = validatorFor(createTokenBody)
    const projects = () => kernel.domains.query.projects
    const id = (ex: Exchange) => ex.params.id ?? ''
    const find = (projectId: string) => {
      const p = projects().project(projectId)
      if (!p) throw new GatewayError(404, `project ${projectId} does not exist`)
      return p
    }
    const actions: Record<AdminProjectsConfig['action'], (ex: Exchange) => Promise<void>> = {
      async list(ex) {
        ex.reply = reply.json({ object: 'list', data: projects().projects().map(projectView) })
      },
      async get(ex) {
        ex.reply = reply.json(projectView(find(id(ex))))
      },
      async put(ex) {
        if (!ex.body || typeof ex.body !== 'object' || Array.isArray(ex.body))
          throw new GatewayError(400, 'invalid request: the body must be a project object', { code: 'invalid_request' })
        const existed = projects().project(id(ex)) !== undefined
        const project = await projects().putProject(id(ex), ex.body, (keyId) => kernel.keys.key(keyId) !== undefined)
        ex.reply = reply.json(projectView(project), existed ? 200 : 201)
      },
      async delete(ex) {
        await projects().deleteProject(id(ex))
        ex.reply = reply.json({ id: id(ex), deleted: true })
      },
      async tokens(ex) {
        find(id(ex))
        ex.reply = reply.json({ object: 'list', data: projects().tokens(id(ex)).map(tokenView) })
      },
      async 'create-token'(ex) {
        const body = structuredClone(ex.body ?? {})
        if (!validateToken(body))
          throw new GatewayError(400, `invalid request: ${describeErrors(validateToken.errors)}`, {
            code: 'invalid_request',
          })
        const made = await projects().createToken(id(ex), (body as CreateTokenBody).kind)
        ex.reply = reply.json({ token: tokenView(made.token), secret: made.secret }, 201)
      },
      async 'delete-token'(ex) {
        const token = ex.params.token ?? ''
        await projects().deleteToken(id(ex), token)
        ex.reply = reply.json({ id: token, project: id(ex), deleted: true })
      },
    }
    const run = actions[config.action]
    return {
      async request(ex) {
        await run(ex)
        // A token's secret must not linger in intermediaries' caches.
        ex.headers.set('cache-control', 'no-store')
      },
    }
  },
})
