/**
 * Which model answers a vision request: `model_name` when sent (any chat model of the catalog:
 * a text-only one with the vision boon gets the image described by its helper); else the
 * project's default model when it can see images; else the catalog's first vision model that
 * is in service and that the project's key may use (the operator's order in models.yaml).
 * Only the gateway's own catalog serves vision here (`model_provider: gateway`).
 */
import { GatewayError, type Kernel, type PermitCaller } from '../../kernel/contract/index.js'
import type { QueryDefaults } from '../../schemas/query-request.schema.js'
import type { ModelConfig } from '../../schemas/models.schema.js'

export const PROVIDER = 'gateway'

const inService = (m: ModelConfig, now: number) =>
  m.model_type === 'chat' &&
  m.enabled !== false &&
  m.status !== 'deprecated' &&
  !(m.retire_at && Date.parse(m.retire_at) <= now)

export function visionModel(
  kernel: Kernel,
  asked: { model_provider?: string; model_name?: string },
  defaults: QueryDefaults,
  caller: PermitCaller,
): string {
  const provider = asked.model_provider ?? PROVIDER
  if (provider !== PROVIDER)
    throw new GatewayError(400, `model_provider ${provider} does not serve vision requests: use ${PROVIDER}`, {
      code: 'invalid_request',
    })
  if (asked.model_name !== undefined) return asked.model_name
  // A default of another provider names no model of this catalog.
  const ownDefault = (defaults.model_provider ?? PROVIDER) === PROVIDER ? defaults.model_name : undefined
  const fallback = ownDefault !== undefined ? kernel.catalog.model(ownDefault) : undefined
  if (fallback?.supports_vision && inService(fallback, kernel.now())) return fallback.id
  const first = kernel.catalog
    .models()
    .find((m) => m.supports_vision && inService(m, kernel.now()) && kernel.catalog.permits(caller, [m.id]))
  if (!first) throw new GatewayError(503, 'no vision model is available: name one with model_name')
  return first.id
}
