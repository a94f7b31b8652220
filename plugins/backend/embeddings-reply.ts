/**
 * Smooths the embedding servers' replies into OpenAI's shape. Infinity's top-level
 * `object: "embedding"` becomes `list`. Vectors leave in the format the client asked for: a
 * server that ignores `encoding_format: base64` (or answers base64 unasked) is converted here,
 * and the openai SDK, which asks for base64 by default, decodes the same floats either way. A
 * Matryoshka model whose server ignores `dimensions` sends whole vectors, which are shortened and
 * renormalised as vLLM does. A usage without `total_tokens` gets it. A reply that needs none
 * of this is said to be unchanged, so that it can leave as the server wrote it: re-serializing
 * thousands of floats costs more than the whole route.
 */
import { fromBase64, shortened, toBase64 } from '../../protocols/openai/embeddings.js'
import type { OpenAIUsage } from '../../protocols/openai/usage.js'

type Json = Record<string, unknown>

export interface AskedEmbeddings {
  readonly format: 'float' | 'base64'
  /** Set only for a model that takes `dimensions`. */
  readonly dimensions: number | undefined
}

/** Normalizes a whole embeddings reply in place: its usage, if it has one, and whether anything changed. */
export function normalizeEmbeddings(
  body: Json,
  asked: AskedEmbeddings,
): { usage: OpenAIUsage | undefined; changed: boolean } {
  let changed = false
  if (body.object === 'embedding') {
    body.object = 'list'
    changed = true
  }
  if (Array.isArray(body.data)) for (const item of body.data as Json[]) changed = normalizeItem(item, asked) || changed
  const usage = body.usage as { prompt_tokens?: unknown; total_tokens?: unknown } | null | undefined
  if (!usage || typeof usage.prompt_tokens !== 'number') return { usage: undefined, changed }
  if (typeof usage.total_tokens !== 'number') {
    usage.total_tokens = usage.prompt_tokens
    changed = true
  }
  return { usage: { prompt_tokens: usage.prompt_tokens }, changed }
}

/** Whether the item was changed. */
function normalizeItem(item: Json, asked: AskedEmbeddings): boolean {
  if (!item || typeof item !== 'object') return false
  let changed = false
  if (item.object === undefined) {
    item.object = 'embedding'
    changed = true
  }
  const sent = item.embedding
  const long = asked.dimensions !== undefined && vectorLength(sent) > asked.dimensions
  // The common case, a server that did what was asked, costs nothing.
  if (!long && (asked.format === 'base64' ? typeof sent === 'string' : Array.isArray(sent))) return changed
  let vector = typeof sent === 'string' ? fromBase64(sent) : Array.isArray(sent) ? (sent as number[]) : undefined
  if (!vector) return changed
  if (long) vector = shortened(vector, asked.dimensions!)
  item.embedding = asked.format === 'base64' ? toBase64(vector) : vector
  return true
}

function vectorLength(v: unknown): number {
  if (typeof v === 'string') return Math.floor((v.length * 3) / 4 / 4)
  return Array.isArray(v) ? v.length : 0
}
