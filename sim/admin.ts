/**
 * GET/POST /admin/config, after llm-d-inference-sim: read or change latency and failure
 * injection while the simulator runs. A POST merges what it sends into the current settings
 * and answers with the result.
 */
import type { ServerResponse } from 'node:http'
import { SimError } from './api-error.js'
import { validateAdminPatch } from './config-validation.js'
import { sendJson } from './http-io.js'
import type { RuntimeSettings, SimContext } from './sim-context.js'

export function adminSettings(sim: SimContext): RuntimeSettings {
  return {
    latency: { ...sim.settings.latency },
    failure: { ...sim.settings.failure, types: [...sim.settings.failure.types] },
  }
}

export function handleAdminGet(sim: SimContext, res: ServerResponse): void {
  sendJson(res, 200, adminSettings(sim))
}

export function handleAdminPost(sim: SimContext, res: ServerResponse, body: unknown): void {
  const result = validateAdminPatch(body)
  if ('error' in result) throw new SimError(400, `Invalid settings: ${result.error}`)
  applyAdminPatch(sim, result.patch)
  sendJson(res, 200, adminSettings(sim))
}

export function applyAdminPatch(
  sim: SimContext,
  patch: { latency?: Partial<RuntimeSettings['latency']>; failure?: Partial<RuntimeSettings['failure']> },
): void {
  if (patch.latency) Object.assign(sim.settings.latency, patch.latency)
  if (patch.failure) Object.assign(sim.settings.failure, patch.failure)
}
