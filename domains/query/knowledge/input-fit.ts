/**
 * Fitting a text to a model's input limit (the catalog's `context_window`, in the model's own
 * tokens) before it is sent, so that a long chunk or document is cut by us rather than refused
 * by the server.
 *
 * We count with cl100k_base (tokens.ts), which is not the model's tokenizer. A "safe estimate"
 * multiplies our count by `ratio`: the default, 2, bounds every tokenizer measured here (the
 * embedded USE lite counts 1.6 to 1.9 times cl100k on prose, code, SQL, tables and JSON; the
 * simulator's four-bytes-a-token 1.0 to 1.3; WordPiece cross-encoders about 1.3 to 1.8). When a
 * server still refuses, the callers refit with a larger ratio once (knowledge-base.ts) or
 * answer 502 naming the model (plugins/rerank).
 */
import { countTokens } from './tokens.js'

/** Model tokens per cl100k token assumed when nothing better is known. */
export const SAFE_TOKEN_RATIO = 2

/** The refit ratio after a server refused an input fitted at SAFE_TOKEN_RATIO. */
export const CAUTIOUS_TOKEN_RATIO = 4

/** The longest prefix of `text` (cut at white space where there is any) of at most `maxTokens` cl100k tokens. */
export function fitToTokens(text: string, maxTokens: number): { text: string; truncated: boolean } {
  if (maxTokens <= 0) return { text: '', truncated: text !== '' }
  // A cl100k token is at least one UTF-8 byte: a short text (a window, a query) needs no count.
  if (Buffer.byteLength(text, 'utf8') <= maxTokens || countTokens(text) <= maxTokens) return { text, truncated: false }
  // Binary search on the cut point: about log2(length) counts, each at most the text's size.
  let lo = 0
  let hi = text.length
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    if (countTokens(text.slice(0, mid)) <= maxTokens) lo = mid
    else hi = mid - 1
  }
  let cut = lo
  // Do not split a surrogate pair; prefer to end at white space within the last 10% of the prefix.
  if (cut > 0 && cut < text.length && /[\uD800-\uDBFF]/.test(text[cut - 1]!)) cut--
  const space = text.slice(0, cut).search(/\s\S*$/)
  if (space > cut * 0.9) cut = space
  return { text: text.slice(0, cut).trimEnd(), truncated: true }
}

/** cl100k tokens of budget for an input limit of `modelTokens` model tokens, at `ratio`. */
export function cl100kBudget(modelTokens: number, ratio = SAFE_TOKEN_RATIO): number {
  return Math.max(1, Math.floor(modelTokens / ratio))
}

/** Whether an upstream refusal says that an input was longer than the model takes (vLLM, TEI, OpenAI wording). */
export function isInputTooLong(message: string): boolean {
  return /context length|maximum context|too long|reduce the length|max_model_len|exceeds? (the )?max/i.test(message)
}
