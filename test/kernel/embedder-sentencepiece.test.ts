/**
 * The embedder's own tokenizer (embedder/sentencepiece.ts) against the one in
 * `@energetic-ai/embeddings` that the model shipped with: the same ids for every text of both
 * benchmark corpora and the docs (cut as ingestion cuts them), and for the edge cases of
 * normalization, surrogates and unknown characters. A different id would change every vector.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { repoRoot } from '../../kernel/contract/paths.js'
import { ours, theirs } from '../support/use-lite-tokenizers.js'

const test = suite('embedder: the SentencePiece tokenizer')

function texts(dir: string, every: number): string[] {
  const out: string[] = []
  const files = fs.readdirSync(path.join(repoRoot, dir), { recursive: true }).map(String).sort()
  for (const [n, file] of files.entries()) {
    const full = path.join(repoRoot, dir, file)
    if (n % every !== 0 || !fs.statSync(full).isFile()) continue
    const text = fs.readFileSync(full, 'utf8')
    for (let at = 0; at < text.length; at += 1200) out.push(text.slice(at, at + 1200))
  }
  return out
}

test('the same ids as the model package on the corpora and the docs', () => {
  const sample = [...texts('bench/corpus/sqlite-doc', 12), ...texts('bench/corpus/python-doc', 12), ...texts('docs', 8)]
  assert.ok(sample.length > 150, `${sample.length} texts`)
  for (const text of sample) assert.equal(ours(text), theirs(text), text.slice(0, 60))
})

test('the same ids on the edges: empty, spaces, NFKC, emoji, lone surrogates, unknown runs', () => {
  for (const text of [
    '',
    ' ',
    '  two  spaces ',
    'naïve café — 東京 🎉👍🏽',
    'ﬁ ① ㎏ Å',
    '\uD800 lone \uDC00',
    '\u0000\t\n',
    '𝔘𝔫𝔨𝔫𝔬𝔴𝔫 ꙮꙮꙮ ᚠᚢᚦ',
    'a'.repeat(2000),
  ])
    assert.equal(ours(text), theirs(text), JSON.stringify(text.slice(0, 20)))
})

test.run()
