/**
 * The retrieval-quality corpus (bench/corpus/sqlite-doc/: pages of Debian's sqlite3-doc, public
 * domain) and its questions. A question's relevant passages are named by a short exact quote
 * from one page rather than by chunk ids, so the judgement survives a change of chunker or
 * store: a chunk is relevant when it belongs to that page and contains the quote (whitespace
 * collapsed, since readers may re-flow lines).
 */
import fs from 'node:fs'
import path from 'node:path'
import { repoRoot } from '../kernel/contract/paths.js'
import type { Block } from '../domains/query/knowledge/blocks.js'
import { readHtml } from '../domains/query/knowledge/readers/html.js'

export const corpusDir = path.join(repoRoot, 'bench', 'corpus', 'sqlite-doc')

export interface QualityQuestion {
  readonly id: string
  readonly question: string
  /** The page (file name in corpusDir) that answers it. */
  readonly file: string
  /** Exact words of the answering passage as the HTML reader renders them. */
  readonly quote: string
}

export function loadQuestions(): QualityQuestion[] {
  const parsed = JSON.parse(fs.readFileSync(path.join(corpusDir, 'questions.json'), 'utf8')) as {
    questions: QualityQuestion[]
  }
  return parsed.questions
}

export function corpusFiles(): string[] {
  return fs
    .readdirSync(corpusDir)
    .filter((f) => f.endsWith('.html'))
    .sort()
}

/** A page through the same reader the ingestion API uses for HTML. */
export function readPage(file: string): Block[] {
  return readHtml(fs.readFileSync(path.join(corpusDir, file), 'utf8'))
}

export const collapse = (s: string): string => s.replace(/\s+/g, ' ')

export function isRelevant(q: QualityQuestion, chunk: { sourceName: string; content: string }): boolean {
  return chunk.sourceName === q.file && collapse(chunk.content).includes(collapse(q.quote))
}
