/**
 * The PostgreSQL lexical leg's two tsqueries: one that ranks (every word of the query) and one
 * that picks the candidates (only its rarer words), after Elasticsearch's "common terms" query.
 *
 * Why: ts_rank_cd costs ≈ 10 µs a row, and it ran on every chunk holding any word of the
 * question; a word like "sqlite" or "column" is in 30-60% of the chunks, so at 100k chunks most
 * rows were ranked (issue 12: 1.27 s). ts_rank_cd has no notion of how rare a word is either, so
 * chunks that hold only common words crowd the top. Chunks must now hold at least one word found
 * in at most COMMON_SHARE of the table's chunks, and are ranked by all the words: fewer rows to
 * rank, through the GIN index, and better nDCG@10 on the quality bench (docs/performance.md).
 *
 * How common a word is comes from the planner's statistics (pg_stats.most_common_elems of the
 * tsvector column, kept by ANALYZE/autovacuum), not from counting: a count would itself visit
 * the rows. A word missing from those statistics is rarer than any listed one. Before the first
 * ANALYZE there are no statistics: every word counts as rare and the leg ranks every chunk that
 * holds any word, as it did before (slower, never wrong). The shares are over the whole table
 * (every collection of the schema), as SQLite's bm25 IDF is over its whole FTS index.
 */
import { HEADING_WEIGHT } from './search-terms.js'

/**
 * ts_rank_cd's weights of the lexemes marked D, C, B, A (each at most 1, so the larger of the
 * two is 1): the content is 'D' and the heading path 'A' (postgres-knowledge.ts), so a heading
 * word counts HEADING_WEIGHT times a content word.
 */
const text = Math.min(1, 1 / HEADING_WEIGHT)
const RANK_WEIGHTS = `{${[text, text, text, Math.min(1, HEADING_WEIGHT)].join(',')}}`

/** A word held by more than this share of the chunks does not make a chunk a candidate. */
export const COMMON_SHARE = 0.2

/**
 * The leg as one statement (one round trip: PGlite, the test double, serves every pool of a
 * process on one session and mixes up statements that interleave). Parameters: $1 the search
 * terms joined by spaces, $2 the collection id, $3 k; the filter's from $4.
 *
 * - `lexemes`: the terms as 'english' indexes them (stemmed), each with its share of the chunks
 *   from pg_stats, or null when the statistics do not list it.
 * - `q`: `rank` ORs every lexeme; `pick` ORs the rarer ones, or all when every one is common.
 *   Each lexeme goes in quoted (quote_literal), so the tsquery parser takes it as it is; the
 *   terms are letters, digits and underscores only, so no lexeme holds a quote or backslash.
 * - The candidates are tested with `@@ pick` through the GIN index (an InitPlan parameter).
 */
export function lexicalSql(chunkColumns: string, joinDocument: string, filterSql: string): string {
  return `WITH lexemes AS (
      SELECT l.lexeme, (SELECT s.most_common_elem_freqs[array_position(s.most_common_elems::text::text[], l.lexeme)]
          FROM pg_stats s WHERE s.schemaname = current_schema() AND s.tablename = 'kb_chunks' AND s.attname = 'tsv') AS share
        FROM (SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('english', $1))) AS lexeme) l),
    q AS (SELECT (SELECT string_agg(quote_literal(lexeme), ' | ') FROM lexemes)::tsquery AS rank,
        COALESCE((SELECT string_agg(quote_literal(lexeme), ' | ') FROM lexemes WHERE share IS NULL OR share <= ${COMMON_SHARE}),
          (SELECT string_agg(quote_literal(lexeme), ' | ') FROM lexemes))::tsquery AS pick)
    SELECT ${chunkColumns}, ts_rank_cd('${RANK_WEIGHTS}', c.tsv, (SELECT rank FROM q)) AS score
      FROM kb_chunks c ${joinDocument}
      WHERE c.collection = $2 AND c.tsv @@ (SELECT pick FROM q)${filterSql} ORDER BY score DESC, c.id LIMIT $3`
}
