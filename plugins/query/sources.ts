/**
 * `response.metadata.sources` (spec 001: an object holding the requested output fields; `{}`
 * when search is off): by source name, the list of that source's results in rank order, each
 * shaped by `output_fields` as the knowledge base's search returns it.
 */
import type { Passage } from '../../kernel/services/knowledge/search/search-collection.js'

export function sourcesOf(passages: readonly Passage[] | undefined): Record<string, unknown[]> {
  const sources: Record<string, unknown[]> = {}
  for (const p of passages ?? []) (sources[p.sourceName] ??= []).push(p.view)
  return sources
}
