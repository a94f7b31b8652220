/**
 * The words of a query that the lexical leg searches for: the query's words, lower-cased, each
 * once, without English stop words.
 *
 * Why drop stop words: the legs OR the words together, so a question's "how", "the", "is" made
 * it match nearly every chunk, and every match is ranked (issue 12: 638 ms at 100k chunks in
 * SQLite). They carry no ranking signal either: FTS5's bm25 gives a word found in more than half
 * the chunks an IDF of 1e-6, and PostgreSQL's 'english' configuration already removes them from
 * both the tsvector and the tsquery. Dropping them made SQLite's lexical leg better, not worse,
 * on the retrieval-quality bench (docs/performance.md, "Retrieval quality").
 *
 * Why this list: it is PostgreSQL's own `english.stop` (Snowball's English list, 127 words,
 * BSD-style licence), so both stores drop exactly the same words and a query made only of stop
 * words finds nothing in either, rather than everything in one and nothing in the other.
 */
import { queryTokens } from './store.js'

// prettier-ignore
const SNOWBALL_ENGLISH = [
  'i',
  'me',
  'my',
  'myself',
  'we',
  'our',
  'ours',
  'ourselves',
  'you',
  'your',
  'yours',
  'yourself',
  'yourselves',
  'he',
  'him',
  'his',
  'himself',
  'she',
  'her',
  'hers',
  'herself',
  'it',
  'its',
  'itself',
  'they',
  'them',
  'their',
  'theirs',
  'themselves',
  'what',
  'which',
  'who',
  'whom',
  'this',
  'that',
  'these',
  'those',
  'am',
  'is',
  'are',
  'was',
  'were',
  'be',
  'been',
  'being',
  'have',
  'has',
  'had',
  'having',
  'do',
  'does',
  'did',
  'doing',
  'a',
  'an',
  'the',
  'and',
  'but',
  'if',
  'or',
  'because',
  'as',
  'until',
  'while',
  'of',
  'at',
  'by',
  'for',
  'with',
  'about',
  'against',
  'between',
  'into',
  'through',
  'during',
  'before',
  'after',
  'above',
  'below',
  'to',
  'from',
  'up',
  'down',
  'in',
  'out',
  'on',
  'off',
  'over',
  'under',
  'again',
  'further',
  'then',
  'once',
  'here',
  'there',
  'when',
  'where',
  'why',
  'how',
  'all',
  'any',
  'both',
  'each',
  'few',
  'more',
  'most',
  'other',
  'some',
  'such',
  'no',
  'nor',
  'not',
  'only',
  'own',
  'same',
  'so',
  'than',
  'too',
  'very',
  's',
  't',
  'can',
  'will',
  'just',
  'don',
  'should',
  'now',
]

/**
 * How much a word of a chunk's heading path (page title, section headings) counts against a
 * word of its text, in both stores' lexical ranking: FTS5 bm25 column weights, and ts_rank_cd's
 * weight of the tsvector's 'A' lexemes. Indexed so that a chunk deep in a section is found by
 * the section's name, which its text may not repeat. Half, not more: on the tuning set heading
 * weights of 1 and 2 lowered both stores' lexical nDCG@10 (every chunk of a page shares its
 * title, so a title word lifts all of them alike), and 0.5 cost at most 0.006 while lifting
 * PostgreSQL's hybrid (docs/performance.md, "Fusion"; docs/decisions.md).
 */
export const HEADING_WEIGHT = 0.5

export const STOP_WORDS: ReadonlySet<string> = new Set(SNOWBALL_ENGLISH)

/** The words to search for; empty when the query has none but stop words (the leg then finds nothing). */
export function searchTerms(query: string): string[] {
  const terms = new Set<string>()
  for (const token of queryTokens(query)) {
    const word = token.toLowerCase()
    if (!STOP_WORDS.has(word)) terms.add(word)
  }
  return [...terms]
}
