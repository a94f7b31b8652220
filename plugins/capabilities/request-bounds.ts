/**
 * The most a request may ask of its model (models.yaml `limits`): choices (`n`, `best_of`),
 * output tokens per choice, and alternatives per token. Checked before anything is reserved, so
 * that one request cannot make a model server (the embedded simulator included) generate
 * millions of tokens or logprobs, nor hold a budget for them. The field is named as the client
 * sent it: the Responses API's `max_output_tokens` arrives here as the chat body's `max_tokens`.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import type { ModelConfig } from '../../schemas/models.schema.js'

/** The fields of a chat or legacy completions body that ask for work. */
interface AskingBody {
  n?: unknown
  best_of?: unknown
  max_tokens?: unknown
  max_completion_tokens?: unknown
  top_logprobs?: unknown
  /** A boolean on chat; on /v1/completions the number of alternatives per token. */
  logprobs?: unknown
}

export interface BoundsContext {
  model: ModelConfig
  /** The model as the client named it. */
  requested: string
  /** The Responses API's name for the output-token field, when the body was translated from it. */
  outputField?: string
}

export function checkRequestBounds(body: AskingBody, context: BoundsContext): void {
  const { model } = context
  const limits = model.limits ?? {}
  const maxN = limits.max_n ?? 16
  const maxOutput = limits.max_output_tokens ?? model.context_window ?? 8192
  const maxTop = limits.max_top_logprobs ?? 20
  over(context, 'n', body.n, maxN)
  over(context, 'best_of', body.best_of, maxN)
  over(context, context.outputField ?? 'max_completion_tokens', body.max_completion_tokens, maxOutput)
  over(context, context.outputField ?? 'max_tokens', body.max_tokens, maxOutput)
  over(context, 'top_logprobs', body.top_logprobs, maxTop)
  if (typeof body.logprobs === 'number') over(context, 'logprobs', body.logprobs, maxTop)
}

/** Only numbers are measured: a value of the wrong type is the model server's to refuse. */
function over(context: BoundsContext, field: string, value: unknown, limit: number): void {
  if (typeof value !== 'number' || !(value > limit)) return
  throw new GatewayError(400, `${field} ${value} is over the limit of ${limit} for model ${context.requested}`, {
    code: 'invalid_request',
  })
}
