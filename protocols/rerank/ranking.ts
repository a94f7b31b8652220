/**
 * The rerank vocabulary every adapter shares: what is asked of a reranker (a query and the
 * texts of its documents), what comes back (a score per document index), and the gateway's
 * own reply, in the Cohere/Jina shape that vLLM, Infinity and most clients speak. Pure code:
 * the adapters translate to and from each server's wire (cohere.ts, tei.ts, vllm-score.ts).
 */
import type { Demand } from '../../kernel/contract/index.js'
import { utf8Bytes } from '../openai/token-estimate.js'

/** What the gateway asks of a reranker. */
export interface RerankAsk {
  readonly query: string
  readonly documents: readonly string[]
  /** How many of the best to keep; undefined keeps all. */
  readonly topN?: number
}

/** One document's score, by its index in the request. */
export interface Scored {
  readonly index: number
  readonly score: number
}

/** A server's answer, read: its scores, and the tokens it says it used (when it says). */
export type ReadScores = { readonly scores: Scored[]; readonly tokens?: number } | { readonly malformed: string }

/** A document as a client may send it: text, or Cohere v1's / Jina's `{text}` object. */
export type RerankDocument = string | { readonly text: string }

export function documentText(doc: RerankDocument): string {
  return typeof doc === 'string' ? doc : doc.text
}

/**
 * Special tokens a cross-encoder adds around each (query, document) pair: [CLS] q [SEP] d [SEP],
 * with room for a model that frames them differently.
 */
const SPECIAL_TOKENS_PER_PAIR = 4

/**
 * An upper bound of the tokens a rerank uses: a cross-encoder reads the query once per
 * document, and a token covers at least one UTF-8 byte. Nothing is generated.
 */
export function rerankDemand(query: string, documents: readonly string[]): Demand {
  const q = utf8Bytes(query)
  let tokens = 0
  for (const d of documents) tokens += q + utf8Bytes(d) + SPECIAL_TOKENS_PER_PAIR
  return { inputTokens: tokens, outputTokens: 0, choices: 1, adjustable: false }
}

/**
 * The gateway's own count when a server reports none (TEI, Cohere's search units): a token per
 * four bytes of each pair, the rule of thumb the rest of the gateway uses.
 */
export function estimatedRerankTokens(query: string, documents: readonly string[]): number {
  const q = utf8Bytes(query)
  let tokens = 0
  for (const d of documents) tokens += Math.ceil((q + utf8Bytes(d)) / 4) + SPECIAL_TOKENS_PER_PAIR
  return tokens
}

/**
 * Best first; equal scores keep request order (so a reply is deterministic whatever order the
 * server listed them in); `topN` keeps the best.
 */
export function ranked(scores: readonly Scored[], topN: number | undefined): Scored[] {
  const out = [...scores].sort((a, b) => b.score - a.score || a.index - b.index)
  return topN === undefined ? out : out.slice(0, topN)
}

/** Checks a server's scores: each index once, within the request, with a finite score. */
function checkScores(scores: readonly Scored[], count: number): string | undefined {
  const seen = new Set<number>()
  for (const s of scores) {
    if (!Number.isInteger(s.index) || s.index < 0 || s.index >= count)
      return `index ${String(s.index)} is not one of the ${count} documents`
    if (seen.has(s.index)) return `index ${s.index} is scored twice`
    if (typeof s.score !== 'number' || !Number.isFinite(s.score)) return `the score of index ${s.index} is not a number`
    seen.add(s.index)
  }
  return undefined
}

export interface RerankResult {
  index: number
  relevance_score: number
  document?: { text: string }
}

/** The gateway's reply: Cohere's and Jina's shape (vLLM answers the same). */
export interface RerankReply {
  id: string
  model: string
  results: RerankResult[]
  usage: { total_tokens: number }
}

export function rerankReply(
  id: string,
  model: string,
  best: readonly Scored[],
  documents: readonly string[],
  returnDocuments: boolean,
  tokens: number,
): RerankReply {
  return {
    id,
    model,
    results: best.map((s) =>
      returnDocuments
        ? { index: s.index, relevance_score: s.score, document: { text: documents[s.index]! } }
        : { index: s.index, relevance_score: s.score },
    ),
    usage: { total_tokens: tokens },
  }
}

/** A JSON object, or undefined. */
export function objectOf(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/**
 * Reads a server's list of scored items: each an object whose `index` and `scoreField` are the
 * document and its score; `what` names an item and `missing` the list's absence in messages. `complete`: a score per document is
 * required (a server that ranks them all must not drop any silently); `usage.total_tokens` of
 * `body` is taken when it is there.
 */
export function readScoreList(
  items: unknown,
  count: number,
  options: { scoreField: string; what: string; missing: string; complete: boolean; usage?: unknown },
): ReadScores {
  if (!Array.isArray(items)) return { malformed: options.missing }
  const scores: Scored[] = []
  for (const item of items) {
    const r = objectOf(item)
    if (!r) return { malformed: `a ${options.what} is not an object` }
    scores.push({ index: r.index as number, score: r[options.scoreField] as number })
  }
  const wrong = checkScores(scores, count)
  if (wrong) return { malformed: wrong }
  if (options.complete && scores.length !== count)
    return { malformed: `${scores.length} scores for ${count} documents` }
  const tokens = objectOf(options.usage)?.total_tokens
  return typeof tokens === 'number' ? { scores, tokens } : { scores }
}
