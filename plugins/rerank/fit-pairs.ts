/**
 * Fitting each (query, document) pair to the reranker's input limit (the catalog's
 * `context_window`, per pair), so that a real chunk of a few hundred tokens is reranked, not
 * refused. The document is cut (its head kept); the query too when it alone takes more than
 * half of the window. Texts that fit are sent unchanged.
 *
 * Counting: the gateway counts with cl100k_base and converts to the model's tokens with a
 * ratio: the model server's own for that text, measured with `POST /tokenize` (vLLM's; the
 * simulator has it) on each text that may not fit, plus a margin; without it (TEI, Cohere), the safe
 * estimate of domains/query/knowledge/input-fit.ts (2 model tokens per cl100k token). A
 * server that still refuses a pair as too long is a 502 naming the model (index.ts).
 */
import type { Exchange, Kernel } from '../../kernel/contract/index.js'
import type { ModelConfig } from '../../schemas/models.schema.js'
import { cl100kBudget, fitToTokens, SAFE_TOKEN_RATIO } from '../../domains/query/knowledge/input-fit.js'
import { countTokens } from '../../domains/query/knowledge/tokens.js'

/** Model tokens kept aside per pair for the separators a cross-encoder adds ([CLS], [SEP] ×2, a BOS). */
export const PAIR_SPECIAL_TOKENS = 8
/** A measured ratio is raised by this much: a document may tokenize worse than the sample. */
const MEASURED_MARGIN = 1.1
/** Characters of a text sent to /tokenize (its ratio is measured on its head, which is what is kept). */
const SAMPLE_CHARS = 16_384
/** /tokenize calls at once. */
const PARALLEL = 8

export interface FittedPairs {
  readonly query: string
  readonly documents: string[]
  /** How many texts were cut (the query included). */
  readonly cut: number
}

/** Model tokens per cl100k token of one text. */
export type RatioOf = (text: string) => number

/** The texts that would exceed the window at the safe ratio; none when all fit. */
export function overLimit(query: string, documents: readonly string[], window: number): string[] {
  const budget = cl100kBudget(window - PAIR_SPECIAL_TOKENS, SAFE_TOKEN_RATIO)
  const q = countTokens(query)
  if (q > budget / 2) return [query, ...documents.filter((d) => countTokens(d) > budget / 2)]
  return documents.filter((d) => q + countTokens(d) > budget)
}

/**
 * Query and documents cut so that each pair fits `window` model tokens: the query to at most
 * half of it, each document to what the query leaves, each text converted at its own ratio.
 */
export function fitPairs(query: string, documents: readonly string[], window: number, ratioOf: RatioOf): FittedPairs {
  const room = window - PAIR_SPECIAL_TOKENS
  const q = fitToTokens(query, cl100kBudget(room / 2, ratioOf(query)))
  const queryModelTokens = Math.ceil(countTokens(q.text) * ratioOf(query))
  let cut = q.truncated ? 1 : 0
  const fitted = documents.map((d) => {
    const f = fitToTokens(d, cl100kBudget(room - queryModelTokens, ratioOf(d)))
    if (f.truncated) cut++
    return f.text
  })
  return { query: q.text, documents: fitted, cut }
}

/**
 * Each text's model tokens per cl100k token (with a margin), by the model server's `/tokenize`
 * (one call per text, at most PARALLEL at a time, each on its first SAMPLE_CHARS characters);
 * the safe ratio for every text when the server has no such endpoint or answers oddly.
 */
export async function serverRatios(
  ex: Exchange,
  kernel: Kernel,
  model: ModelConfig,
  texts: readonly string[],
): Promise<RatioOf> {
  const ratios = new Map<string, number>()
  const measure = async (text: string) => {
    const sample = text.slice(0, SAMPLE_CHARS)
    const local = countTokens(sample)
    if (local === 0) return
    const res = await kernel.backends.callText(ex, {
      model,
      path: '/tokenize',
      body: JSON.stringify({ model: model.served_name ?? model.id, prompt: sample, add_special_tokens: false }),
      accept: 'application/json',
      refit: () => undefined, // a count is the model's own tokenizer's, never a fallback's
    })
    const count = (JSON.parse(res.text) as { count?: unknown }).count
    if (typeof count !== 'number' || !Number.isFinite(count) || count < 0) throw new Error('no count')
    ratios.set(text, Math.min(SAFE_TOKEN_RATIO * 2, Math.max(0.25, (count / local) * MEASURED_MARGIN)))
  }
  const unique = [...new Set(texts)]
  try {
    if (unique.length > 0) await measure(unique[0]!)
    for (let i = 1; i < unique.length; i += PARALLEL) await Promise.all(unique.slice(i, i + PARALLEL).map(measure))
  } catch (err) {
    if (ex.signal.aborted) throw err
    return () => SAFE_TOKEN_RATIO
  }
  return (text) => ratios.get(text) ?? SAFE_TOKEN_RATIO
}
