/**
 * The retrieval-quality corpora and their questions are well-formed, both of them (sqlite-doc,
 * the tuning set; python-doc, held out): enough answerable questions, ten unanswerable ones,
 * unique ids, every named page in the corpus, every quote still in its page as the HTML reader
 * renders it and in at least one chunk (so an edited or renamed page, or a reader change, is
 * caught here and not as a silent drop in the bench's scores). No embeddings: fast.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  CORPORA,
  collapse,
  corpusFiles,
  isAnswerable,
  isRelevant,
  loadQuestions,
  readPage,
} from '../../../../bench/quality-corpus.js'
import { chunkDocument } from '../../../../domains/query/knowledge/chunker.js'

for (const corpus of CORPORA) {
  const test = suite(`retrieval-quality corpus ${corpus}`)
  const questions = loadQuestions(corpus)
  const answerable = questions.filter(isAnswerable)
  const files = corpusFiles(corpus)

  test('at least 60 answerable and 10 unanswerable questions, unique ids, text and a quote', () => {
    assert.ok(answerable.length >= 60, `${answerable.length} answerable questions`)
    assert.ok(questions.length - answerable.length >= 10, `${questions.length - answerable.length} unanswerable`)
    assert.is(new Set(questions.map((q) => q.id)).size, questions.length)
    for (const q of questions) assert.ok(q.question.trim().length > 10, q.id)
    for (const q of answerable) assert.ok(q.quote.trim().length >= 15, `${q.id}: quote too short to be specific`)
  })

  test('an unanswerable question names no page and no quote', () => {
    for (const q of questions.filter((x) => !isAnswerable(x)))
      assert.ok(!('file' in q) && !('quote' in q), `${q.id}: unanswerable but names a page`)
  })

  test('each question names a page of the corpus', () => {
    for (const q of answerable) assert.ok(files.includes(q.file), `${q.id}: ${q.file} is not in the corpus`)
  })

  test('each quote is in its page as the reader sees it, and in some chunk', () => {
    const pages = new Map<string, { text: string; chunks: { sourceName: string; content: string }[] }>()
    for (const file of new Set(answerable.map((q) => q.file))) {
      const blocks = readPage(corpus, file)
      pages.set(file, {
        text: collapse(blocks.map((b) => b.text).join('\n\n')),
        chunks: chunkDocument(blocks).map((c) => ({ sourceName: file, content: c.content })),
      })
    }
    for (const q of answerable) {
      const page = pages.get(q.file)!
      assert.ok(page.text.includes(collapse(q.quote)), `${q.id}: quote not in ${q.file}`)
      assert.ok(
        page.chunks.some((c) => isRelevant(q, c)),
        `${q.id}: quote split across chunks of ${q.file}`,
      )
    }
  })

  test('the corpus stays modest: a few dozen pages, none over 200 KB', () => {
    assert.ok(files.length >= 20 && files.length <= 120, `${files.length} pages`)
  })

  test.run()
}
