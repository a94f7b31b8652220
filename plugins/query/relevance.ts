/**
 * The `restricted` mode's guard before a model is asked: do the retrieved passages bear on the
 * question at all? Two signals. First, lexical coverage: the share of the question's content words
 * (lower-cased words of three letters or more, less a stop list, a light suffix fold) that occur
 * in the first passages retrieval returned. It is read from the passages' text, so its scale is
 * the same whatever fused them (RRF or normalised scores) and whichever store ranked them: a
 * fused score would move with the fusion method and its weights. Second, names: a word the
 * question writes as a name that the collection never contains (namesOf). Below the collection's
 * threshold the service answers "not in the documents" itself, at no model cost; above it the
 * system prompt's instruction covers the rest with a real model. Calibrated on the two
 * development sets (docs/operator-guide.md, "Restricted mode's guard").
 */
const STOP = new Set(
  'the and for are but not you all any can had her was one our out has his how its may new now old see two who did get let put say she too use what when where which while with from that this than then them they their there these those have into about after again also been being both does doing down each few more most much must only other over same some such very just will would could should shall your yours what why whom way want need make made like instead rather without within able something anything thing things give gives getting going good possible happen happens there'.split(
    ' ',
  ),
)

/** A light fold of English endings, so "rows" meets "row" and "indexed" meets "index". */
function fold(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3)
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2)
  if (word.length > 4 && word.endsWith('es')) return word.slice(0, -2)
  if (word.length > 3 && word.endsWith('s')) return word.slice(0, -1)
  return word
}

export function contentWords(text: string): Set<string> {
  const words = new Set<string>()
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (raw.length < 3 || STOP.has(raw)) continue
    words.add(fold(raw))
  }
  return words
}

/** The guard's settings for a collection (schema.ts `restricted_guard`). */
export interface RelevanceGuard {
  /** Least share of the question's content words found in the passages (0 to 1); 0: only "no word at all". */
  readonly minCoverage: number
  /** How many of the first passages are read. */
  readonly passages: number
  /**
   * Also refuse when the question names something (namesOf) that neither those passages nor
   * any chunk of the collection contains: "with PyTorch" asked of a manual that never says it.
   */
  readonly names: boolean
}

/**
 * Calibrated on both development sets (bench/retrieval-quality.ts; docs/operator-guide.md): 0.4
 * is the lower of the two fitted thresholds, 5 the Query service's default top_k.
 */
export const DEFAULT_GUARD: RelevanceGuard = { minCoverage: 0.4, passages: 5, names: true }

/**
 * The share (0 to 1) of the question's content words that occur in the first `depth` passages;
 * for a question of several paragraphs, that of its best-covered paragraph: a realtime query is
 * the caller's instruction, a blank line, then the transcript, and the instruction's words
 * ("answer the question in the recording") must not dilute the transcript's.
 */
export function coverage(question: string, passages: readonly { text: string }[], depth: number): number {
  const read = new Set<string>()
  for (const p of passages.slice(0, depth)) for (const w of contentWords(p.text)) read.add(w)
  const parts = question
    .split(/\n\s*\n/)
    .map(contentWords)
    .filter((words) => words.size > 0)
  if (parts.length === 0) return passages.length ? 1 : 0
  return Math.max(...parts.map((words) => [...words].filter((w) => read.has(w)).length / words.size))
}

/**
 * The words a question writes as names: with a capital letter where a sentence does not start
 * ("PostgreSQL", "Docker", "LISTEN") or inside a word ("PyTorch"), lower-cased, stop words and
 * words under three letters left out. A sentence starts the text, or follows `.`, `?`, `!`, `:`
 * or a line break. A user who writes names in lower case gets no name check, only coverage.
 */
export function namesOf(question: string): string[] {
  const names = new Set<string>()
  for (const m of question.matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = m[0]
    const lower = word.toLowerCase()
    if (lower.length < 3 || STOP.has(lower) || !/\p{L}/u.test(word)) continue
    const startsSentence = /(^|[.?!:]\s|\n)\s*$/u.test(question.slice(0, m.index))
    if ((!startsSentence && /\p{Lu}/u.test(word)) || /\p{Ll}\p{Lu}/u.test(word)) names.add(lower)
  }
  return [...names]
}

export interface GuardVerdict {
  readonly bears: boolean
  readonly coverage: number
  /** The name that refused the question, when one did. */
  readonly missingName?: string
}

/**
 * Whether the passages bear on the question: some passage shares a content word with it, the
 * coverage reaches the guard's threshold, and (with `names`) every name of the question is in
 * the passages or, failing that, somewhere in the collection (`known`, a lookup of one word in
 * the collection's lexical index, asked only for a name the passages lack). A question of stop
 * words only passes when anything was retrieved (there is nothing to measure).
 */
export async function judgeRelevance(
  question: string,
  passages: readonly { text: string }[],
  guard: RelevanceGuard,
  known: (word: string) => Promise<boolean>,
): Promise<GuardVerdict> {
  const c = coverage(question, passages, guard.passages)
  if (c === 0 || c < guard.minCoverage) return { bears: false, coverage: c }
  if (!guard.names) return { bears: true, coverage: c }
  const read = new Set<string>()
  for (const p of passages.slice(0, guard.passages)) for (const w of contentWords(p.text)) read.add(w)
  for (const name of namesOf(question)) {
    if (read.has(fold(name))) continue
    if (!(await known(name))) return { bears: false, coverage: c, missingName: name }
  }
  return { bears: true, coverage: c }
}

/** The plugin's `restricted_guard` option, as ajv leaves it (defaults applied). */
export interface GuardOption {
  readonly min_coverage?: number
  readonly passages?: number
  readonly names?: boolean
  readonly collections?: Readonly<
    Record<string, { readonly min_coverage?: number; readonly passages?: number; readonly names?: boolean }>
  >
}

/** A collection's guard: its own fields over the route's over the shipped default. */
export function guardFor(option: GuardOption | undefined, collection: string | undefined): RelevanceGuard {
  const own =
    collection !== undefined && option?.collections
      ? Object.hasOwn(option.collections, collection)
        ? option.collections[collection]
        : undefined
      : undefined
  return {
    minCoverage: own?.min_coverage ?? option?.min_coverage ?? DEFAULT_GUARD.minCoverage,
    passages: own?.passages ?? option?.passages ?? DEFAULT_GUARD.passages,
    names: own?.names ?? option?.names ?? DEFAULT_GUARD.names,
  }
}
