/**
 * The service-token rule of spec 001 ("Authentication" 2): a service token that sends its own
 * parameters (fields that have a project default) must say `request_source: "override_params"`,
 * else the request is a 400. The query and every body type check it here.
 * A developer token may always send them. `request_source`, when
 * sent, must be `override_params` ("Must be `override_params`", Query request table).
 */
import { GatewayError } from '../../kernel/contract/index.js'

export const OVERRIDE_PARAMS = 'override_params'

/** The query request's fields a project has defaults for: sending any of them is sending "own parameters". */
export const QUERY_OWN_PARAMETERS = [
  'model_provider',
  'model_name',
  'model_params',
  'enable_search',
  'search_params',
  'enable_history',
  'response_format',
  'enhance_prompt',
  'eval_params',
] as const

/** Throws the 400 when a service token sends any of `fields` without `request_source: "override_params"`. */
export function checkOwnParams(
  tokenKind: 'developer' | 'service',
  body: Readonly<Record<string, unknown>>,
  fields: readonly string[],
): void {
  const source = body.request_source
  if (source !== undefined && source !== OVERRIDE_PARAMS)
    throw new GatewayError(400, `request_source must be "${OVERRIDE_PARAMS}"`, { code: 'invalid_request' })
  if (tokenKind !== 'service' || source === OVERRIDE_PARAMS) return
  const sent = fields.filter((f) => body[f] !== undefined)
  if (sent.length > 0)
    throw new GatewayError(
      400,
      `a service token sends its own parameters only with request_source "${OVERRIDE_PARAMS}" (sent: ${sent.join(', ')})`,
      { code: 'invalid_request' },
    )
}
