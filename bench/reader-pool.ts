/**
 * `node dist/bench/reader-pool.js [--rounds 20]`: what the reader pool adds to reading one
 * small Markdown upload (a heading and a paragraph, its tokens counted), against reading it on
 * the calling thread (InlineReaders), in the same run:
 * - warm: the pool's reader already started, as in a burst of uploads or a bulk load;
 * - cold: a new pool each time, so the reader's start (and its loading the Markdown parser and
 *   the tokenizer) is paid, as after a quiet spell.
 * Prints the median and 90th percentile of each, and the ratio of the medians to the baseline.
 * The rounds interleave the three, so a noisy machine weighs on each alike.
 */
import { DEFAULT_READER_LIMITS } from '../domains/query/knowledge/readers/limits.js'
import { InlineReaders, ReaderPool, type DocumentReaders } from '../domains/query/knowledge/readers/reader-pool.js'
import { median, option } from './bench-setup.js'

const rounds = option('rounds', 20)
const limits = { ...DEFAULT_READER_LIMITS, workers: 1 }
const doc = {
  bytes: Buffer.from('# Harbour\n\nThe harbour opens at dawn and closes at dusk; pilots board at the outer buoy.\n'),
  contentType: 'text/markdown',
  fileName: 'notes.md',
}

async function timed(readers: DocumentReaders): Promise<number> {
  const t = performance.now()
  const { tokens } = await readers.text(doc)
  if (tokens <= 0) throw new Error('the document was read empty')
  return performance.now() - t
}

const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!
const inline = new InlineReaders(limits)
const warm = new ReaderPool(limits)
await timed(inline) // loads the parser and the tokenizer here too
await timed(warm)
const times = { inline: [] as number[], warm: [] as number[], cold: [] as number[] }
for (let i = 0; i < rounds; i++) {
  times.inline.push(await timed(inline))
  times.warm.push(await timed(warm))
  const cold = new ReaderPool(limits)
  times.cold.push(await timed(cold))
  await cold.close()
}
await warm.close()

const base = median(times.inline)
console.log(`reader pool: one small Markdown document, ${rounds} rounds`)
for (const [name, xs] of Object.entries(times))
  console.log(
    `${name.padEnd(7)} median ${median(xs).toFixed(2).padStart(7)} ms  p90 ${p90(xs).toFixed(2).padStart(7)} ms  ${(median(xs) / base).toFixed(1)}× inline`,
  )
