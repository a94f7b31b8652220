/**
 * The use-lite tokenizer: the model package's own (`@energetic-ai/embeddings`, quadratic in a
 * text's length) against the embedder's (kernel/services/embedder/sentencepiece.ts), on the
 * same texts in the same run: the pages of both retrieval corpora cut at `--chars`, interleaved
 * round by round. Prints ms a text for each and their ratio, and checks the ids agree.
 *
 *   node dist/bench/use-lite-tokenizer.js [--chars 1500] [--rounds 3]
 */
import fs from 'node:fs'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { ours, theirs } from '../test/support/use-lite-tokenizers.js'
import { median, option } from './bench-setup.js'
import { CORPORA, corpusDir, corpusFiles } from './quality-corpus.js'

const CHARS = option('chars', 1500)
const ROUNDS = option('rounds', 3)

const texts: string[] = []
for (const corpus of CORPORA)
  for (const file of corpusFiles(corpus)) {
    const page = fs.readFileSync(path.join(corpusDir(corpus), file), 'utf8').replace(/<[^>]*>/g, ' ')
    for (let at = 0; at + CHARS <= page.length; at += CHARS) texts.push(page.slice(at, at + CHARS))
  }

function time(encode: (text: string) => number[]): number {
  const start = performance.now()
  for (const text of texts) encode(text)
  return (performance.now() - start) / texts.length
}

const mismatches = texts.filter((t) => ours(t).join() !== theirs(t).join()).length
const runs = { package: [] as number[], embedder: [] as number[] }
for (let round = 0; round < ROUNDS; round++) {
  runs.package.push(time(theirs))
  runs.embedder.push(time(ours))
}
const [a, b] = [median(runs.package), median(runs.embedder)]
console.log(`use-lite tokenizer: ${texts.length} texts of ${CHARS} characters, ${ROUNDS} rounds, medians`)
console.log(`  package   ${a.toFixed(2)} ms a text`)
console.log(
  `  embedder  ${b.toFixed(2)} ms a text   (${(a / b).toFixed(1)}× faster; ids differ on ${mismatches} texts)`,
)
