/**
 * What ingestion sends the embedding model (windows.ts embeddingInputs, made in the reader
 * thread, then KnowledgeBase.embedChunks): with vector windows on,
 * each text once: a chunk that is one window whole, a longer chunk only as its windows, its
 * own vector then the normalised mean of theirs; with windows off, each chunk whole.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  DEFAULT_KNOWLEDGE_SETTINGS,
  KnowledgeBase,
  type Embed,
} from '../../../../domains/query/knowledge/knowledge-base.js'
import { embeddingInputs, vectorWindows } from '../../../../domains/query/knowledge/windows.js'
import { bagOfWords } from '../../../support/fake-embeddings.js'

const test = suite('knowledge: what a chunk costs the embedding model')

const kb = (maxTokens: number) =>
  new KnowledgeBase(undefined as never, { ...DEFAULT_KNOWLEDGE_SETTINGS, vectorWindows: { maxTokens } }, {
    close: async () => undefined,
  } as never)

function recording(): { embed: Embed; sent: string[] } {
  const sent: string[] = []
  const embed: Embed = async (_model, input) => {
    sent.push(...input)
    return input.map((t) => Float32Array.from(bagOfWords(t)))
  }
  return { embed, sent }
}

const short = 'Readers see the database as of their transaction start.'
const long = Array.from(
  { length: 12 },
  (_, i) => `Sentence ${i} says that checkpoints move pages from the write-ahead log back into the database file.`,
).join(' ')

test('windows on: each text once, no whole long chunk, the long chunk’s vector the mean direction of its windows', async () => {
  const { embed, sent } = recording()
  const [a, b] = await kb(32).embedChunks(
    'm',
    [short, long].map((c) => embeddingInputs(c, 32)),
    embed,
  )
  const windows = vectorWindows(long, 32)
  assert.ok(windows.length > 1)
  assert.equal(sent, [short, ...windows])
  assert.equal(a!.windows, [a!.embedding])
  assert.is(b!.windows!.length, windows.length)
  const mean = new Float32Array(b!.embedding.length)
  for (const w of b!.windows!) w.forEach((x, i) => (mean[i]! += x))
  const norm = Math.hypot(...mean)
  b!.embedding.forEach((x, i) => assert.ok(Math.abs(x - mean[i]! / norm) < 1e-6))
  assert.ok(Math.abs(Math.hypot(...b!.embedding) - 1) < 1e-6, 'a unit vector')
})

test('windows off: each chunk whole, no windows', async () => {
  const { embed, sent } = recording()
  const out = await kb(0).embedChunks(
    'm',
    [short, long].map((c) => embeddingInputs(c, 0)),
    embed,
  )
  assert.equal(sent, [short, long])
  assert.equal(
    out.map((o) => o.windows),
    [undefined, undefined],
  )
})

test.run()
