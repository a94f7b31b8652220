/**
 * The retrieval-quality corpus and its questions are well-formed: enough questions, unique ids,
 * every named page in the corpus, every quote still in its page as the HTML reader renders it
 * and in at least one chunk (so an edited or renamed page, or a reader change, is caught here
 * and not as a silent drop in the bench's scores). No embeddings: fast.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { collapse, corpusFiles, isRelevant, loadQuestions, readPage } from '../../../../bench/quality-corpus.js'
import { chunkDocument } from '../../../../domains/query/knowledge/chunker.js'

const test = suite('retrieval-quality corpus')
const questions = loadQuestions()
const files = corpusFiles()

test('at least 60 questions with unique ids, text and a quote', () => {
  assert.ok(questions.length >= 60, `${questions.length} questions`)
  assert.is(new Set(questions.map((q) => q.id)).size, questions.length)
  for (const q of questions) {
    assert.ok(q.question.trim().length > 10, q.id)
    assert.ok(q.quote.trim().length >= 15, `${q.id}: quote too short to be specific`)
  }
})

test('each question names a page of the corpus', () => {
  for (const q of questions) assert.ok(files.includes(q.file), `${q.id}: ${q.file} is not in the corpus`)
})

test('each quote is in its page as the reader sees it, and in some chunk', () => {
  const pages = new Map<string, { text: string; chunks: { sourceName: string; content: string }[] }>()
  for (const file of new Set(questions.map((q) => q.file))) {
    const blocks = readPage(file)
    pages.set(file, {
      text: collapse(blocks.map((b) => b.text).join('\n\n')),
      chunks: chunkDocument(blocks).map((c) => ({ sourceName: file, content: c.content })),
    })
  }
  for (const q of questions) {
    const page = pages.get(q.file)!
    assert.ok(page.text.includes(collapse(q.quote)), `${q.id}: quote not in ${q.file}`)
    assert.ok(
      page.chunks.some((c) => isRelevant(q, c)),
      `${q.id}: quote split across chunks of ${q.file}`,
    )
  }
})

test('the corpus stays modest: a few dozen pages', () => {
  assert.ok(files.length >= 20 && files.length <= 120, `${files.length} pages`)
})

test.run()
