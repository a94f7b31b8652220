/**
 * The retrieval-quality corpora and their questions: bench/corpus/sqlite-doc/ (pages of Debian's
 * sqlite3-doc, public domain; the tuning set) and bench/corpus/python-doc/ (pages of Debian's
 * python3.11-doc, PSF licence; held out: nothing is tuned on it). A question's relevant
 * passages are named by a short exact quote from one page rather than by chunk ids, so the
 * judgement survives a change of chunker or store: a chunk is relevant when it belongs to that
 * page and contains the quote (whitespace collapsed, since readers may re-flow lines).
 *
 * Some questions are marked `"answerable": false`: the corpus does not answer them. They are
 * left out of recall, MRR and nDCG, and measure restricted mode's guard instead.
 */
import fs from 'node:fs'
import path from 'node:path'
import { repoRoot } from '../kernel/contract/paths.js'
import type { Block } from '../domains/query/knowledge/blocks.js'
import { readHtml } from '../domains/query/knowledge/readers/html.js'

export const CORPORA = ['sqlite-doc', 'python-doc'] as const
export type CorpusName = (typeof CORPORA)[number]

export const corpusDir = (corpus: CorpusName): string => path.join(repoRoot, 'bench', 'corpus', corpus)

export interface AnswerableQuestion {
  readonly id: string
  readonly question: string
  /** The page (file name in the corpus folder) that answers it. */
  readonly file: string
  /** Exact words of the answering passage as the HTML reader renders them. */
  readonly quote: string
  readonly answerable?: true
}

/** A question the corpus does not answer (restricted mode should refuse it). */
export interface UnanswerableQuestion {
  readonly id: string
  readonly question: string
  readonly answerable: false
}

export type QualityQuestion = AnswerableQuestion | UnanswerableQuestion

export const isAnswerable = (q: QualityQuestion): q is AnswerableQuestion => q.answerable !== false

export function loadQuestions(corpus: CorpusName): QualityQuestion[] {
  const parsed = JSON.parse(fs.readFileSync(path.join(corpusDir(corpus), 'questions.json'), 'utf8')) as {
    questions: QualityQuestion[]
  }
  return parsed.questions
}

export function corpusFiles(corpus: CorpusName): string[] {
  return fs
    .readdirSync(corpusDir(corpus))
    .filter((f) => f.endsWith('.html'))
    .sort()
}

/** A page through the same reader the ingestion API uses for HTML. */
export function readPage(corpus: CorpusName, file: string): Block[] {
  return readHtml(fs.readFileSync(path.join(corpusDir(corpus), file), 'utf8'))
}

export const collapse = (s: string): string => s.replace(/\s+/g, ' ')

export function isRelevant(q: AnswerableQuestion, chunk: { sourceName: string; content: string }): boolean {
  return chunk.sourceName === q.file && collapse(chunk.content).includes(collapse(q.quote))
}
