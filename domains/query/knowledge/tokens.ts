/**
 * Token counts for chunking, by OpenAI's cl100k_base encoding (gpt-tokenizer). The model
 * server that embeds the chunks has its own tokenizer and may count differently (usually
 * within ten or twenty per cent for English); chunk sizes are a budget, not a contract.
 * cl100k rather than o200k: its tables are half the size and load faster, and no embedding
 * model we serve uses either, so the closer match buys nothing.
 */
import { createRequire } from 'node:module'

type Count = typeof import('gpt-tokenizer/encoding/cl100k_base').countTokens
let encoding: Count | undefined

/**
 * The encoding's tables weigh ~20 MB of heap (~50 MB of RSS): loaded at the first count (a
 * synchronous require, ~0.1-0.3 s once), not at start, so that a gateway that never chunks a
 * document or counts locally never holds them (docs/performance.md, memory).
 */
function count(text: string, options: Parameters<Count>[1]): number {
  encoding ??= (createRequire(import.meta.url)('gpt-tokenizer/encoding/cl100k_base') as { countTokens: Count })
    .countTokens
  return encoding(text, options)
}

// Text such as "<|endoftext|>" in a document is ordinary text here, not a special token
// (the default would throw on it).
const PLAIN = { disallowedSpecial: new Set<string>() }

/**
 * Byte-pair encoding is slow on a long run without a space (one pre-token: 250 KB of "a" held
 * the event loop for 45 s, and even 200-letter slices of it take milliseconds each). Runs of
 * more than LONG_RUN non-space characters (base64, long URLs, hostile input) are therefore not
 * encoded but estimated at one token per BYTES_PER_TOKEN bytes, which bounds the time by the
 * text's length; ordinary words and sentences are counted exactly.
 */
const LONG_RUN = 64
const BYTES_PER_TOKEN = 3
const LONG_RUNS = new RegExp(`\\S{${LONG_RUN + 1},}`, 'g')
const HAS_LONG_RUN = new RegExp(`\\S{${LONG_RUN + 1}}`)

export function countTokens(text: string): number {
  if (!HAS_LONG_RUN.test(text)) return count(text, PLAIN)
  let total = 0
  let last = 0
  for (const m of text.matchAll(LONG_RUNS)) {
    total += count(text.slice(last, m.index), PLAIN) + Math.ceil(Buffer.byteLength(m[0], 'utf8') / BYTES_PER_TOKEN)
    last = m.index + m[0].length
  }
  return total + count(text.slice(last), PLAIN)
}

export const TOKENIZER = 'cl100k_base'
