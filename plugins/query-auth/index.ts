/**
 * query-auth: a Query service token (spec 001, "Authentication"). The token names its project
 * and kind; `project_id` at the request's root is accepted with either kind, must name the
 * token's own project, and is required with a developer token. The project's model calls run
 * as the project's gateway key (`ex.principal`), so they are budgeted, queued and recorded
 * under it. Only ids reach logs.
 */
import { GatewayError, definePlugin } from '../../kernel/contract/index.js'
import { presentedToken } from '../../protocols/credentials/presented-token.js'
import type { Project, ProjectToken } from '../../domains/query/projects.js'
import { configSchema } from './schema.js'

declare module '../../kernel/contract/index.js' {
  interface ExchangeState {
    /** The Query service token presented and its project. */
    queryAuth?: { readonly project: Project; readonly token: ProjectToken }
  }
}

const unauthorized = (message: string) => new GatewayError(401, message, { headers: { 'www-authenticate': 'Bearer' } })

export default definePlugin({
  name: 'query-auth',
  config: configSchema,
  provides: ['queryAuth', 'principal'],
  setup(config, kernel) {
    return {
      async request(ex, next) {
        const secret = presentedToken(ex, config.query_param)
        if (secret === undefined) throw unauthorized('missing bearer token')
        const found = kernel.domains.query.projects.authenticate(secret)
        if (!found) throw unauthorized('invalid access token')
        const { project, token } = found
        const asked = projectIdOf(ex.body) ?? ex.query.get('project_id') ?? undefined
        // At a WebSocket's upgrade there is no body yet: each message is checked when it comes.
        if (asked === undefined && token.kind === 'developer' && !config.project_id_later && ex.body !== undefined)
          throw new GatewayError(400, 'project_id is required with a developer token', { code: 'invalid_request' })
        // Another project's id gets the same answer whether or not that project exists.
        if (asked !== undefined && asked !== project.id)
          throw new GatewayError(403, `this token is not valid for project ${asked}`)
        const key = kernel.keys.key(project.keyId)
        if (!key) {
          ex.log.error('project key not found', { project: project.id, key: project.keyId })
          throw new GatewayError(503, `project ${project.id} has no usable gateway key`)
        }
        if (!key.enabled) throw new GatewayError(403, `the gateway key of project ${project.id} is disabled`)
        if (key.expiresAt !== undefined && kernel.now() >= key.expiresAt)
          throw new GatewayError(403, `the gateway key of project ${project.id} has expired`)
        ex.principal = { keyId: key.id, group: key.group, legacy: key.legacy }
        ex.state.queryAuth = { project, token }
        await next()
      },
    }
  },
})

function projectIdOf(body: unknown): string | undefined {
  const id = body !== null && typeof body === 'object' ? (body as { project_id?: unknown }).project_id : undefined
  if (id === undefined) return undefined
  if (typeof id !== 'string' || id === '')
    throw new GatewayError(400, 'project_id must be a non-empty string', { code: 'invalid_request' })
  return id
}
