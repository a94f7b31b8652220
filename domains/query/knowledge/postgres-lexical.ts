/**
 * The PostgreSQL lexical leg: BM25 in plain SQL (no extension), scored as SQLite's FTS5 bm25
 * scores (same k1, b, IDF formula and heading weight), so that the stores rank alike.
 *
 * Why: ts_rank_cd, used before, has no IDF and no length normalisation; on the development sets
 * its nDCG@10 was far below FTS5 bm25's (issue 28; docs/performance.md, "Retrieval quality").
 *
 * How, in one statement:
 * 1. Candidates, through the GIN index, as before (issue 12): the collection's chunks holding at
 *    least one of the query's rarer words (found in at most COMMON_SHARE of the table's chunks by
 *    pg_stats.most_common_elems; all the words when every one is common, or before the first
 *    ANALYZE). A chunk holding only common words would score little anyway, and ranking every
 *    chunk holding "sqlite" or "column" was what made the leg slow at 100k chunks.
 * 2. Each candidate's own tsvector gives the weighted term frequency f of each query lexeme it
 *    holds (a heading 'A' position counts HEADING_WEIGHT, a content position 1) and its length
 *    (its positions: the words other than stop words, heading included). Both through built-in
 *    C functions rather than `unnest(tsv)`, which builds arrays for every lexeme of every
 *    candidate (that first version, with the CTEs below still inlined, took 4× this one's
 *    time): f is ts_rank_cd of the single lexeme with weights
 *    {1,1,1,HEADING_WEIGHT} (each occurrence is one cover worth its position's weight, so the
 *    sum is the weighted count), and the length is ts_rank(…, 0) / ts_rank(…, 2) (normalisation
 *    2 divides by the number of positions), rounded. The bench gives identical nDCG@10 both ways.
 * 3. Document frequency per collection: exact for a rarer word, counted among the candidates
 *    (every chunk holding it is one, so the count costs nothing more); for a common word, its
 *    pg_stats share × the collection's chunks, because counting it would visit 20-60% of the rows
 *    and its IDF is small and flat there anyway (FTS5 floors an IDF at 1e-6 past half the rows).
 * 4. N and the average length from `kb_collections.lexical_chunks/lexical_length`, kept in step
 *    by every write (postgres-knowledge.ts): exact and read in one row, where an average over
 *    the collection would visit every chunk on every query.
 */
import { HEADING_WEIGHT } from './search-terms.js'

/** BM25's term-saturation and length-normalisation constants: FTS5's fixed ones. */
export const BM25_K1 = 1.2
export const BM25_B = 0.75

/** ts_rank_cd's weights of D, C, B, A positions: a heading ('A') word counts HEADING_WEIGHT. */
const RANK_WEIGHTS = `{1,1,1,${HEADING_WEIGHT}}`

/** A word held by more than this share of the chunks does not make a chunk a candidate. */
export const COMMON_SHARE = 0.2

/** A chunk's length as BM25 counts it, for the statistics kept at writes: its tsvector's positions (SQL over a row's `tsv`). */
export const tsvLength = (tsv: string) => `(SELECT coalesce(sum(cardinality(u.positions)), 0) FROM unnest(${tsv}) u)`

/**
 * The leg as one statement (one round trip: PGlite, the test double, serves every pool of a
 * process on one session and mixes up statements that interleave). Parameters: $1 the search
 * terms joined by spaces, $2 the collection id, $3 k; the filter's from $4.
 *
 * - `lexemes`: the terms as 'english' indexes them (stemmed), each with its share of the chunks
 *   from pg_stats (read once; null when the statistics do not list it), its own tsquery, and
 *   (`picking`) whether it picks candidates. Every CTE is MATERIALIZED: inlined, the planner
 *   re-ran the pg_stats lookup and the document-frequency count once per row.
 * - `pick`: the picking lexemes OR-ed into a tsquery, each quoted (quote_literal) so the parser
 *   takes it as it is (the terms are letters, digits and underscores only). An InitPlan
 *   parameter, so the GIN index serves `@@`.
 * - `candidates`: each chunk's tsvector decompressed once (`|| ''`, kept from inlining by OFFSET 0).
 *   A stored tsvector of a 512-token chunk is compressed in the row, and every function given it
 *   decompressed it again: 3 + 2 per query lexeme times a candidate, which made the leg 1.8×
 *   the old one's time at 10k chunks; 1.2× with this.
 * - `matches`: one row per candidate and query lexeme it holds, with f and the chunk's length.
 * - Without a filter the top k are cut before the chunk and document rows are read; with one,
 *   every candidate is joined and filtered first (the IDF stays the collection's).
 */
export function lexicalSql(chunkColumns: string, joinDocument: string, filterSql: string): string {
  const scores = `WITH common AS MATERIALIZED (
      SELECT s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs
        FROM pg_stats s WHERE s.schemaname = current_schema() AND s.tablename = 'kb_chunks' AND s.attname = 'tsv'),
    shares AS (
      SELECT w.lexeme, (SELECT c.freqs[array_position(c.elems, w.lexeme)] FROM common c) AS share
        FROM (SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('english', $1))) AS lexeme) w),
    lexemes AS MATERIALIZED (
      SELECT lexeme, quote_literal(lexeme)::tsquery AS q, share, share IS NULL OR share <= ${COMMON_SHARE} AS rare FROM shares),
    picking AS MATERIALIZED (SELECT lexeme, share, rare OR NOT EXISTS (SELECT 1 FROM lexemes WHERE rare) AS picks FROM lexemes),
    stats AS MATERIALIZED (SELECT greatest(k.lexical_chunks, 1)::float8 AS n,
        greatest(k.lexical_length::float8 / greatest(k.lexical_chunks, 1), 1) AS avgdl
      FROM kb_collections k WHERE k.id = $2),
    pick AS MATERIALIZED (SELECT string_agg(quote_literal(lexeme), ' | ')::tsquery AS q FROM picking WHERE picks),
    candidates AS MATERIALIZED (
      SELECT x.id, t.tsv, round(ts_rank(t.tsv, (SELECT q FROM pick), 0) / ts_rank(t.tsv, (SELECT q FROM pick), 2)) AS dl
        FROM kb_chunks x CROSS JOIN LATERAL (SELECT x.tsv || ''::tsvector AS tsv OFFSET 0) t
        WHERE x.collection = $2 AND x.tsv @@ (SELECT q FROM pick)),
    matches AS MATERIALIZED (
      SELECT x.id, l.lexeme, x.dl, ts_rank_cd('${RANK_WEIGHTS}', x.tsv, l.q, 0) AS f
        FROM candidates x JOIN lexemes l ON x.tsv @@ l.q),
    counted AS MATERIALIZED (SELECT lexeme, count(*) AS df FROM matches GROUP BY lexeme),
    idf AS MATERIALIZED (
      SELECT d.lexeme, greatest(ln((greatest(s.n - d.df, 0) + 0.5) / (d.df + 0.5)), 1e-6) AS idf FROM stats s CROSS JOIN (
        SELECT p.lexeme, CASE WHEN p.picks THEN coalesce(k.df, 0) ELSE p.share * s2.n END AS df
          FROM picking p CROSS JOIN stats s2 LEFT JOIN counted k ON k.lexeme = p.lexeme) d),
    scores AS (
      SELECT m.id, sum(i.idf * m.f * ${BM25_K1 + 1} / (m.f + ${BM25_K1} * (${1 - BM25_B} + ${BM25_B} * m.dl / s.avgdl))) AS score
        FROM matches m JOIN idf i ON i.lexeme = m.lexeme CROSS JOIN stats s GROUP BY m.id)`
  if (filterSql === '')
    return `${scores}
    SELECT ${chunkColumns}, b.score FROM (SELECT id, score FROM scores ORDER BY score DESC, id LIMIT $3) b
      JOIN kb_chunks c ON c.id = b.id ${joinDocument} ORDER BY b.score DESC, c.id`
  return `${scores}
    SELECT ${chunkColumns}, b.score FROM scores b JOIN kb_chunks c ON c.id = b.id ${joinDocument}
      WHERE true${filterSql} ORDER BY b.score DESC, c.id LIMIT $3`
}
