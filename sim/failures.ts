/**
 * Failure injection. The error failures and their statuses and messages are exactly
 * llm-d-inference-sim's table, so gateway tests written against one hold against the other.
 * Two more faults exercise what only a stream can go through: `cut_stream` (the connection
 * dies mid-reply, no [DONE]) and `stall` (a long wait before the first token).
 *
 * Per request, headers force a fault: `x-return-error: <status or type>` (llm-d's header),
 * `x-sim-cut-after: N`, `x-sim-stall-ms: N`.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { SimError } from './api-error.js'
import { headerMs } from './latency.js'
import type { FailureType } from './schema.js'
import type { SeededRandom } from './seeded-random.js'

export interface FailureSettings {
  rate: number
  types: FailureType[]
  cut_after_chunks: number
  stall_ms: number
}

type ErrorFailure = Exclude<FailureType, 'cut_stream' | 'stall'>

const errorFailures: Record<ErrorFailure, (model: string) => SimError> = {
  rate_limit: (model) =>
    new SimError(
      429,
      `Rate limit reached for ${model} in organization org-xxx on requests per min (RPM): Limit 3, Used 3, Requested 1.`,
    ),
  invalid_api_key: () => new SimError(401, 'Incorrect API key provided.'),
  context_length: () =>
    new SimError(
      400,
      "This model's maximum context length is 4096 tokens. However, your messages resulted in 4500 tokens.",
      'messages',
    ),
  server_error: () => new SimError(503, 'The server is overloaded or not ready yet.'),
  invalid_request: () => new SimError(400, "Invalid request: missing required parameter 'model'.", 'model'),
  model_not_found: (model) => new SimError(404, `The model '${model}-nonexistent' does not exist`, 'model'),
}

/** Which table entry a forced status means (400 has two; the generic one wins). */
const failureByStatus: Record<number, ErrorFailure> = {
  400: 'invalid_request',
  401: 'invalid_api_key',
  404: 'model_not_found',
  429: 'rate_limit',
  503: 'server_error',
}

function isErrorFailure(type: string): type is ErrorFailure {
  return Object.hasOwn(errorFailures, type)
}

/** What happens to one request: nothing, an error reply, or a fault in the reply's delivery. */
export interface FailurePlan {
  error: SimError | undefined
  /** Token chunks to send before the connection is destroyed. */
  cutAfterChunks: number | undefined
  /** Extra wait before the first token. */
  stallMs: number
}

export const noFailure: FailurePlan = { error: undefined, cutAfterChunks: undefined, stallMs: 0 }

export function planFailure(
  headers: IncomingHttpHeaders,
  settings: FailureSettings,
  random: SeededRandom,
  model: string,
): FailurePlan {
  const forced = forcedError(headers['x-return-error'], model)
  if (forced) return { error: forced, cutAfterChunks: undefined, stallMs: 0 }
  const plan: FailurePlan = {
    error: undefined,
    cutAfterChunks: headerMs(headers['x-sim-cut-after']),
    stallMs: headerMs(headers['x-sim-stall-ms']) ?? 0,
  }
  if (settings.rate <= 0 || settings.types.length === 0 || random.next() * 100 >= settings.rate) return plan
  const type = random.pick(settings.types)
  if (type === 'cut_stream') plan.cutAfterChunks ??= settings.cut_after_chunks
  else if (type === 'stall') plan.stallMs = Math.max(plan.stallMs, settings.stall_ms)
  else plan.error = errorFailures[type](model)
  return plan
}

/** `x-return-error` takes a status (`429`) or a failure type (`context_length`). */
function forcedError(header: string | string[] | undefined, model: string): SimError | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim()
  if (!value) return undefined
  if (isErrorFailure(value)) return errorFailures[value](model)
  const status = Number(value)
  if (!Number.isInteger(status) || status < 400 || status > 599) return undefined
  const type = failureByStatus[status]
  if (type) return errorFailures[type](model)
  return new SimError(status, `Simulated error with status ${status}.`)
}
