/** A retrieved chunk with nothing but an id and a score, for tests of fusion and ranking. */
import type { ScoredChunk } from '../../domains/query/knowledge/store.js'

export const scoredChunk = (id: number, score = 0): ScoredChunk => ({
  id,
  documentId: 1,
  sourceName: 's',
  url: null,
  tags: [],
  metadata: {},
  index: id,
  content: `c${id}`,
  headingPath: [],
  pageNumber: null,
  tokens: 1,
  score,
})
