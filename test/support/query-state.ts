/** The `queryAuth` slot and principal that `query-auth` leaves for the Query service's plugins, for isolation tests. */
import type { Project, ProjectToken, TokenKind } from '../../domains/query/projects.js'
import type { QueryDefaults } from '../../schemas/query-request.schema.js'
import type { CallOptions, CallResult } from '../../kernel/contract/kernel.js'
import { Usage } from '../../kernel/contract/usage.js'

export const queryPrincipal = { keyId: 'demo', group: 'demo', legacy: false }

export function queryAuthState(
  kind: TokenKind,
  defaults: QueryDefaults = {},
): { queryAuth: { project: Project; token: ProjectToken } } {
  const project: Project = { id: 'demo', keyId: 'demo', defaults, compareModels: [], source: 'config' }
  return { queryAuth: { project, token: { id: `demo-${kind}`, projectId: 'demo', kind, source: 'config' } } }
}

export interface RouteCallRecord {
  route: string
  body: Record<string, unknown>
  options: CallOptions | undefined
}

/** A route call answering `body` with `used` reported by `model`. */
export function fakeRoute(
  answer: (
    route: string,
    body: Record<string, unknown>,
  ) => { body: unknown; model: string; input: number; output: number },
) {
  const calls: RouteCallRecord[] = []
  const call = async (route: string, body: unknown, options?: CallOptions): Promise<CallResult> => {
    const b = body as Record<string, unknown>
    calls.push({ route, body: b, options })
    const a = answer(route, b)
    const usage = new Usage(undefined)
    usage.model = a.model
    usage.report({ inputTokens: a.input, outputTokens: a.output })
    return { reply: { kind: 'json', status: 200, body: a.body }, headers: new Map(), usage }
  }
  return { call, calls }
}
