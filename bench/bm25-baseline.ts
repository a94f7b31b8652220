/**
 * The plain baseline of issue 28 for the retrieval-quality bench: each page's text as the HTML
 * reader renders it, cut into fixed windows of 300 words (a new window every 250 words, so a
 * quote of under 50 words is never split), in an in-memory SQLite FTS5 table (`porter
 * unicode61`), ranked by FTS5's own bm25() for the question's words OR-ed together. No headings,
 * no weights, no vectors: what an afternoon's "just use BM25" gives.
 */
import Database from 'better-sqlite3'

export const BM25_WINDOW_WORDS = 300
const STRIDE = 250

export interface Bm25Baseline {
  readonly chunks: readonly { id: number; sourceName: string; content: string }[]
  /** Chunk ids, best first. */
  search(question: string, k: number): number[]
  close(): void
}

export function bm25Baseline(pages: readonly { file: string; text: string }[]): Bm25Baseline {
  const db = new Database(':memory:')
  db.exec("CREATE VIRTUAL TABLE c USING fts5(content, source UNINDEXED, tokenize = 'porter unicode61')")
  const insert = db.prepare('INSERT INTO c (rowid, content, source) VALUES (?, ?, ?)')
  const chunks: { id: number; sourceName: string; content: string }[] = []
  for (const page of pages) {
    const words = page.text.split(/\s+/).filter(Boolean)
    for (let at = 0; at < words.length; at += STRIDE) {
      const chunk = {
        id: chunks.length + 1,
        sourceName: page.file,
        content: words.slice(at, at + BM25_WINDOW_WORDS).join(' '),
      }
      chunks.push(chunk)
      insert.run(chunk.id, chunk.content, chunk.sourceName)
      if (at + BM25_WINDOW_WORDS >= words.length) break
    }
  }
  const query = db.prepare('SELECT rowid AS id FROM c WHERE c MATCH ? ORDER BY bm25(c) LIMIT ?')
  return {
    chunks,
    search(question, k) {
      const terms = [...new Set(question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])]
      if (!terms.length) return []
      return (query.all(terms.map((t) => `"${t}"`).join(' OR '), k) as { id: number }[]).map((r) => r.id)
    },
    close: () => db.close(),
  }
}
