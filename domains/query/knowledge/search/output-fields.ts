/**
 * `output_fields`: what each returned chunk carries. Without it a chunk carries everything (the
 * default view). With it, a chunk carries the named fixed fields (`source_name`, `page_number`,
 * `content`, `tags`, `url`) and the named custom metadata keys as top-level fields, plus what
 * places it (`index`, `score`, and `rerank_score` after reranking). A name that is neither a
 * fixed field nor a metadata key of any document of the collection is a 400 naming it.
 */
import { GatewayError } from '../../../../kernel/contract/index.js'
import type { StoredChunk } from '../store.js'

/** Fields a result may carry; custom metadata keys may be named as well. */
export const FIXED_OUTPUT_FIELDS = ['source_name', 'page_number', 'content', 'tags', 'url'] as const

export type ChunkView = Record<string, unknown>
type Ranked = StoredChunk & { score?: number; rerank_score?: number }
export type ChunkShape = (c: Ranked) => ChunkView

const fixed = new Set<string>(FIXED_OUTPUT_FIELDS)

function fullView(c: Ranked): ChunkView {
  return {
    source_name: c.sourceName,
    url: c.url,
    tags: c.tags,
    metadata: c.metadata,
    index: c.index,
    heading_path: c.headingPath,
    page_number: c.pageNumber,
    content: c.content,
    ...(c.score === undefined ? {} : { score: c.score }),
    ...(c.rerank_score === undefined ? {} : { rerank_score: c.rerank_score }),
  }
}

/** The names that are not fixed fields: they must be metadata keys of the collection. */
export function customFields(fields: readonly string[] | undefined): string[] {
  return (fields ?? []).filter((f) => !fixed.has(f))
}

/**
 * The shape of a returned chunk for `fields`; `knownKeys` are the collection's metadata keys
 * (needed only when a custom name is asked for).
 */
export function chunkShape(
  fields: readonly string[] | undefined,
  knownKeys: ReadonlySet<string> = new Set(),
): ChunkShape {
  if (!fields) return fullView
  const unknown = customFields(fields).filter((f) => !knownKeys.has(f))
  if (unknown.length)
    throw new GatewayError(
      400,
      `unknown output_fields: ${unknown.join(', ')} (fields are ${FIXED_OUTPUT_FIELDS.join(', ')} and the collection's metadata keys)`,
      {
        code: 'invalid_request',
      },
    )
  return (c) => {
    const full = fullView(c)
    const out: ChunkView = { index: c.index }
    for (const f of fields) out[f] = fixed.has(f) ? full[f] : c.metadata[f]
    if (c.score !== undefined) out.score = c.score
    if (c.rerank_score !== undefined) out.rerank_score = c.rerank_score
    return out
  }
}
