/**
 * Token counts for chunking, by OpenAI's cl100k_base encoding (gpt-tokenizer). The model
 * server that embeds the chunks has its own tokenizer and may count differently (usually
 * within ten or twenty per cent for English); chunk sizes are a budget, not a contract.
 * cl100k rather than o200k: its tables are half the size and load faster, and no embedding
 * model we serve uses either, so the closer match buys nothing.
 */
import { countTokens as count } from 'gpt-tokenizer/encoding/cl100k_base'

// Text such as "<|endoftext|>" in a document is ordinary text here, not a special token
// (the default would throw on it).
const PLAIN = { disallowedSpecial: new Set<string>() }

export function countTokens(text: string): number {
  return count(text, PLAIN)
}

export const TOKENIZER = 'cl100k_base'
