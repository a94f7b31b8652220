/**
 * Logprobs for emitted tokens. The chosen token is always the most likely one and comes first
 * in `top_logprobs`; the alternatives share what is left of the probability mass, so the listed
 * probabilities always sum below 1, as they must for a real distribution over a vocabulary.
 */
import type { SeededRandom } from './seeded-random.js'

export interface TokenLogprob {
  token: string
  logprob: number
  bytes: number[]
}

export interface ChatLogprob extends TokenLogprob {
  top_logprobs: TokenLogprob[]
}

/** The legacy /v1/completions shape. */
export interface CompletionLogprobs {
  tokens: string[]
  token_logprobs: number[]
  top_logprobs: Array<Record<string, number>>
  text_offset: number[]
}

const alternatives = [
  'the',
  'a',
  'and',
  'it',
  'this',
  'that',
  'is',
  'was',
  'to',
  'of',
  'in',
  'for',
  'on',
  'with',
  'as',
  'at',
  'by',
  'we',
  'you',
  'so',
  'but',
  'or',
]

const encoder = new TextEncoder()

function bytesOf(token: string): number[] {
  return Array.from(encoder.encode(token))
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6
}

/** `total` entries (at least one): the chosen token first, then alternatives, most likely first. */
function distribution(token: string, total: number, random: SeededRandom): Array<{ token: string; logprob: number }> {
  // The chosen token holds 40–99% of the mass; each alternative takes at most half of what is left.
  const chosen = 0.4 + random.next() * 0.59
  const out = [{ token, logprob: round(Math.log(chosen)) }]
  const leadingSpace = token.startsWith(' ') ? ' ' : ''
  let remaining = 1 - chosen
  const start = random.int(0, alternatives.length - 1)
  for (let i = 0; out.length < total; i++) {
    const word = alternatives[(start + i) % alternatives.length] ?? 'the'
    const candidate = i < alternatives.length ? `${leadingSpace}${word}` : `${leadingSpace}${word}${i}`
    if (candidate === token) continue
    remaining /= 2
    out.push({ token: candidate, logprob: round(Math.log(remaining)) })
  }
  return out
}

export function chatLogprobs(tokens: readonly string[], topLogprobs: number, random: SeededRandom): ChatLogprob[] {
  return tokens.map((token) => {
    const entries = distribution(token, topLogprobs, random)
    const logprob = entries[0]?.logprob ?? 0
    const top = topLogprobs > 0 ? entries.map((entry) => ({ ...entry, bytes: bytesOf(entry.token) })) : []
    return { token, logprob, bytes: bytesOf(token), top_logprobs: top }
  })
}

/**
 * One token's entry from probabilities decided elsewhere (verdict answers): the first of
 * `entries` is the chosen token, the list its top alternatives, most likely first.
 */
export function logprobEntry(entries: ReadonlyArray<{ token: string; logprob: number }>): ChatLogprob {
  const top = entries.map((entry) => ({
    token: entry.token,
    logprob: round(entry.logprob),
    bytes: bytesOf(entry.token),
  }))
  const chosen = top[0] ?? { token: '', logprob: 0, bytes: [] }
  return { ...chosen, top_logprobs: top }
}

export function completionLogprobs(
  tokens: readonly string[],
  count: number,
  textOffset: number,
  random: SeededRandom,
): CompletionLogprobs {
  const out: CompletionLogprobs = { tokens: [...tokens], token_logprobs: [], top_logprobs: [], text_offset: [] }
  let offset = textOffset
  for (const token of tokens) {
    const entries = distribution(token, count, random)
    out.token_logprobs.push(entries[0]?.logprob ?? 0)
    const top: Record<string, number> = {}
    // The chosen token is the most likely, so it is among the top `count` and no extra entry is needed.
    for (const entry of entries) top[entry.token] = entry.logprob
    out.top_logprobs.push(top)
    out.text_offset.push(offset)
    offset += token.length
  }
  return out
}
