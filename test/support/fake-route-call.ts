/**
 * A fake `kernel.call` for plugins that call gateway routes in-process (the Query service's
 * media plugins): records each call, answers with a given reply and a Usage that reports given
 * figures, or throws a given error.
 */
import type { CallOptions, CallResult } from '../../kernel/contract/kernel.js'
import type { Reply } from '../../kernel/contract/reply.js'
import { Usage, type ReportedUsage } from '../../kernel/contract/usage.js'

export interface RouteCall {
  routeId: string
  body: unknown
  options: CallOptions | undefined
}

export function fakeRouteCall(answer: () => { reply: Reply; model: string; used: ReportedUsage } | Error) {
  const calls: RouteCall[] = []
  const call = async (routeId: string, body: unknown, options?: CallOptions): Promise<CallResult> => {
    calls.push({ routeId, body, options })
    const a = answer()
    if (a instanceof Error) throw a
    const usage = new Usage(() => ({ inputTokens: 0, choices: 1, adjustable: false }))
    usage.model = a.model
    usage.report(a.used)
    return { reply: a.reply, headers: new Map(), usage }
  }
  return { call, calls }
}

export const demoPrincipal = { keyId: 'demo', group: 'demo', legacy: false }

/** What query-auth leaves for the demo project's service token. */
export const demoQueryAuth = {
  project: { id: 'demo', keyId: 'demo', defaults: {}, compareModels: [], source: 'config' as const },
  token: { id: 'demo-service', projectId: 'demo', kind: 'service' as const, source: 'config' as const },
}
