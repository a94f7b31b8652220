/**
 * The routes the fuzzer drives, read from the loaded generation (so a route added to a pipeline
 * is fuzzed without touching the harness). Internal routes are not reachable from outside. A
 * route that no HTTP method reaches is some other transport: the run refuses to pass silently
 * over it (its door must be written first).
 */
import type { Generation } from '../../kernel/run/generation.js'
import { GatewayError } from '../../kernel/contract/errors.js'
import type { Target } from './door.js'

export function targetsOf(gen: Generation): { targets: Target[]; unserved: string[] } {
  const targets: Target[] = []
  const unserved: string[] = []
  for (const route of gen.routes.values()) {
    // WebSocket routes have their own door (socket-fuzz.ts).
    if (route.internal || route.ws) continue
    if (!route.method || route.path === undefined) {
      unserved.push(route.info.id)
      continue
    }
    const body =
      route.body.kind === 'json' ? { kind: 'json' as const, schema: route.body.schema } : { kind: route.body.kind }
    // The style is the pipeline's `errors:`; rendering a probe tells which without reading the YAML again.
    const errors = route.errors(new GatewayError(400, 'probe')).contentType.includes('xml') ? 'soap' : 'openai'
    targets.push({
      routeId: route.info.id,
      pipeline: route.info.pipeline,
      method: route.method,
      pattern: route.path,
      body,
      errors,
    })
  }
  return { targets, unserved }
}
