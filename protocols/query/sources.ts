/**
 * `response.metadata.sources` (spec 001: an object holding the requested output fields; `{}`
 * when search is off): by source name, the list of that source's results in rank order, each
 * shaped by `output_fields` as the knowledge base's search returns it.
 */

export function sourcesOf(
  passages: readonly { readonly sourceName: string; readonly view: unknown }[] | undefined,
): Record<string, unknown[]> {
  // A Map, then an object without a prototype: a source named `constructor` or `__proto__` is
  // an ordinary key, never Object.prototype's member (which made every such query a 500).
  const bySource = new Map<string, unknown[]>()
  for (const p of passages ?? []) {
    const list = bySource.get(p.sourceName)
    if (list) list.push(p.view)
    else bySource.set(p.sourceName, [p.view])
  }
  const sources = Object.create(null) as Record<string, unknown[]>
  for (const [name, list] of bySource)
    Object.defineProperty(sources, name, { value: list, enumerable: true, writable: true, configurable: true })
  return sources
}
