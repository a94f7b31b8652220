/**
 * Reads the chat route's reply to one question: whether the model started by thinking, the
 * first token's top logprobs, the usage, and the name the server reported.
 */
import type { TokenLogprob } from './scoring.js'

export type FirstToken =
  /** The model spent its one token thinking: retry with thinking skipped. */
  | { readonly kind: 'thinking' }
  /** The server sent no logprobs for the token (a server or model that does not support them). */
  | { readonly kind: 'no-logprobs' }
  /** The chosen token and its top alternatives. */
  | { readonly kind: 'tokens'; readonly candidates: readonly TokenLogprob[] }

export interface CallUsage {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
  cached_tokens: number
}

export interface ReadReply {
  readonly first: FirstToken
  readonly usage: CallUsage
  readonly reportedModel: string | undefined
}

/**
 * Tokens that open a thinking block when the server does not split reasoning out itself:
 * `<think>` (Qwen3, DeepSeek-R1 and most open reasoning models) and gpt-oss's `<|channel|>`.
 */
const THINKING_OPENERS = new Set(['<think>', '<thinking>', '<|channel|>'])

type Json = Record<string, unknown>

const asObject = (v: unknown): Json | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined
const asNumber = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0)

function readUsage(body: Json): CallUsage {
  const u = asObject(body.usage) ?? {}
  const prompt = asNumber(u.prompt_tokens)
  const completion = asNumber(u.completion_tokens)
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: asNumber(u.total_tokens) || prompt + completion,
    cached_tokens: asNumber(asObject(u.prompt_tokens_details)?.cached_tokens),
  }
}

function readToken(v: unknown): TokenLogprob | undefined {
  const o = asObject(v)
  if (!o || typeof o.token !== 'string' || typeof o.logprob !== 'number') return undefined
  return { token: o.token, logprob: o.logprob }
}

function readFirst(body: Json): FirstToken {
  const choice = asObject(Array.isArray(body.choices) ? body.choices[0] : undefined)
  const message = asObject(choice?.message)
  // The backend adapter has already renamed reasoning_content to reasoning.
  const reasoning = message?.reasoning ?? message?.reasoning_content
  if (typeof reasoning === 'string' && reasoning.length > 0) return { kind: 'thinking' }
  const content = asObject(choice?.logprobs)?.content
  const first = Array.isArray(content) ? asObject(content[0]) : undefined
  const chosen = readToken(first)
  if (!first || !chosen) return { kind: 'no-logprobs' }
  if (THINKING_OPENERS.has(chosen.token.trim())) return { kind: 'thinking' }
  const top = Array.isArray(first.top_logprobs)
    ? first.top_logprobs.map(readToken).filter((t): t is TokenLogprob => t !== undefined)
    : []
  return { kind: 'tokens', candidates: [chosen, ...top] }
}

export function readReply(body: unknown): ReadReply {
  const b = asObject(body) ?? {}
  return { first: readFirst(b), usage: readUsage(b), reportedModel: typeof b.model === 'string' ? b.model : undefined }
}
