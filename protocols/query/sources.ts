/**
 * `response.metadata.sources` (spec 001: an object holding the requested output fields; `{}`
 * when search is off): by source name, the list of that source's results in rank order, each
 * shaped by `output_fields` as the knowledge base's search returns it.
 */

export function sourcesOf(
  passages: readonly { readonly sourceName: string; readonly view: unknown }[] | undefined,
): Record<string, unknown[]> {
  const sources: Record<string, unknown[]> = {}
  for (const p of passages ?? []) (sources[p.sourceName] ??= []).push(p.view)
  return sources
}
