/**
 * The speculation boon: a small draft model (`helper_model`) answers first, and the large model
 * (the one the client asked for) checks the draft with a one-token verdict (speculation-check.ts).
 * An accepted draft is the reply; a rejected one is thrown away and the large model answers as
 * if nothing had happened (the route's next steps). Both calls go through `route`
 * (chat-internal), so they are queued, budgeted and recorded under the caller's key.
 *
 * It pays when drafts are often good and the large model is slow to generate: the check costs
 * the large model a prefill and one token instead of a whole reply. A rejection costs the
 * draft and the check on top of the large model's own answer.
 */
import { GatewayError, reply, type Exchange, type Kernel, type Reply } from '../../kernel/contract/index.js'
import { boonActs } from '../../domains/gateway/boons.js'
import type { ModelConfig } from '../../schemas/models.schema.js'
import type { BoonsConfig } from './schema.js'
import {
  CHECK_TOP_LOGPROBS,
  checkMessages,
  readCheck,
  type CheckMessage,
  type CheckReply,
} from './speculation-check.js'
import { draftCompletion, draftStream, draftText, type DraftCompletion } from './draft-reply.js'

export interface SpeculationOptions {
  route: string
  /** The question the large model answers about the draft (the label line is added). */
  question: string
  /** Catalog id of the draft model. */
  draftModel: string
  /** Catalog id of the large model: the one that checks. */
  largeModel: string
  /** Its server's name: what an accepted reply's `model` says. */
  servedName: string
  minYes: number
  maxDraftTokens: number
}

/**
 * What speculation did. `accepted` carries the reply; `rejected` means the draft was made and
 * turned down (by the check, or because it was cut at its length limit); `skipped` means it
 * did not act: the draft or the check failed, or the draft was empty, and the large model
 * answers as usual.
 */
export type Speculation =
  | { kind: 'accepted'; reply: Reply; yes: number | undefined }
  | { kind: 'rejected'; reason: 'check' | 'cut'; yes: number | undefined }
  | { kind: 'skipped'; reason: 'draft failed' | 'check failed' | 'empty draft' }

interface Body {
  messages?: unknown
  stream?: unknown
  stream_options?: { include_usage?: unknown } | null
  max_tokens?: unknown
  max_completion_tokens?: unknown
  [field: string]: unknown
}

/** Sampling fields the draft takes from the request as sent; everything else is the large model's business. */
const SAMPLING = ['temperature', 'top_p', 'stop', 'seed', 'presence_penalty', 'frequency_penalty'] as const

/**
 * Whether speculation can stand in for the large model's reply: a plain text conversation and a
 * plain text reply. Not with tools (a draft's tool call would be run by the client unchecked),
 * several choices (`n`), logprobs (they would be the draft's), a structured response format,
 * audio output, vLLM's prompt echo, or messages holding anything but text (images are the
 * large model's to read).
 */
export function speculable(body: Body): boolean {
  if (!Array.isArray(body.messages) || body.messages.length === 0) return false
  if (Array.isArray(body.tools) ? body.tools.length > 0 : body.tools !== undefined) return false
  if (body.functions !== undefined || (body.tool_choice !== undefined && body.tool_choice !== 'none')) return false
  if (body.n !== undefined && body.n !== null && body.n !== 1) return false
  if (body.logprobs === true || (body.top_logprobs !== undefined && body.top_logprobs !== null)) return false
  if (body.echo === true || (body.prompt_logprobs !== undefined && body.prompt_logprobs !== null)) return false
  if (body.audio !== undefined || (Array.isArray(body.modalities) && body.modalities.some((m) => m !== 'text')))
    return false
  const format = body.response_format as { type?: unknown } | undefined | null
  if (format && format.type !== undefined && format.type !== 'text') return false
  return (body.messages as CheckMessage[]).every((m) => {
    if (typeof m !== 'object' || m === null || !['system', 'developer', 'user', 'assistant'].includes(m.role))
      return false
    if ((m as { tool_calls?: unknown }).tool_calls !== undefined) return false
    const c = m.content
    return (
      typeof c === 'string' ||
      c === null ||
      (Array.isArray(c) && c.every((part: { type?: unknown }) => part?.type === 'text'))
    )
  })
}

/** The draft's length limit: the boon's, or the request's own when lower. */
function draftLimit(body: Body, maxDraftTokens: number): number {
  const own = [body.max_completion_tokens, body.max_tokens].find((v): v is number => typeof v === 'number')
  return own === undefined ? maxDraftTokens : Math.max(1, Math.min(own, maxDraftTokens))
}

/** Runs a call; a failure that is not the client going away becomes undefined (speculation gives up). */
async function attempt<T>(ex: Exchange, what: string, run: () => Promise<T>): Promise<T | undefined> {
  try {
    return await run()
  } catch (err) {
    if (ex.signal.aborted) throw err
    ex.log.warn(`speculation: the ${what} failed; the large model answers`, {
      status: err instanceof GatewayError ? err.status : undefined,
    })
    return undefined
  }
}

export async function speculate(
  kernel: Kernel,
  ex: Exchange,
  body: Body,
  options: SpeculationOptions,
): Promise<Speculation> {
  const callOptions = { principal: ex.principal, signal: ex.signal, parentId: ex.id }
  const messages = body.messages as CheckMessage[]
  const sampling = Object.fromEntries(SAMPLING.filter((f) => body[f] !== undefined).map((f) => [f, body[f]]))

  const drafted = await attempt(ex, 'draft', () =>
    kernel.call(
      options.route,
      {
        ...sampling,
        model: options.draftModel,
        messages,
        max_tokens: draftLimit(body, options.maxDraftTokens),
        reasoning_effort: 'none',
      },
      callOptions,
    ),
  )
  if (!drafted || drafted.reply.kind !== 'json') return { kind: 'skipped', reason: 'draft failed' }
  const draft = drafted.reply.body as DraftCompletion
  const text = draftText(draft)
  if (text === undefined) return { kind: 'skipped', reason: 'empty draft' }
  // A draft cut at its limit is not a complete answer: no check can make it one.
  if (draft.choices?.[0]?.finish_reason !== 'stop') return { kind: 'rejected', reason: 'cut', yes: undefined }

  const checked = await attempt(ex, 'check', () =>
    kernel.call(
      options.route,
      {
        model: options.largeModel,
        messages: checkMessages(messages, text, options.question),
        max_tokens: 1,
        temperature: 0,
        logprobs: true,
        top_logprobs: CHECK_TOP_LOGPROBS,
        reasoning_effort: 'none',
      },
      callOptions,
    ),
  )
  if (!checked || checked.reply.kind !== 'json') return { kind: 'skipped', reason: 'check failed' }
  const verdict = readCheck(checked.reply.body as CheckReply, options.minYes)
  if (!verdict.accepted) return { kind: 'rejected', reason: 'check', yes: verdict.yes }

  // The client is told the draft's usage under the model it asked for; the draft and the check
  // are each charged on their own records.
  ex.usage.relay(drafted.usage.used(), options.largeModel)
  const shape = { model: options.servedName, includeUsage: body.stream_options?.include_usage === true }
  const answer =
    body.stream === true
      ? reply.events(draftStream(draft, text, shape), { terminator: '[DONE]' })
      : reply.json(draftCompletion(draft, text, shape))
  return { kind: 'accepted', reply: answer, yes: verdict.yes }
}

/**
 * Speculation for this request, when the model opted in (models.yaml) and the request is one it
 * can serve; undefined otherwise (nothing was called).
 */
export async function speculateFor(
  kernel: Kernel,
  ex: Exchange,
  model: ModelConfig,
  body: Body,
  config: BoonsConfig,
): Promise<Speculation | undefined> {
  const boon = model.boons?.speculation
  if (!boon?.helper_model || !boonActs(model, 'speculation') || !speculable(body)) return undefined
  return speculate(kernel, ex, body, {
    route: config.route,
    question: config.speculation_question,
    draftModel: boon.helper_model,
    largeModel: model.id,
    servedName: model.served_name ?? model.id,
    minYes: boon.min_yes_probability ?? 0.5,
    maxDraftTokens: boon.max_draft_tokens ?? 512,
  })
}
