/**
 * Cutting prose below a paragraph: into sentences, and a sentence too long for a chunk into
 * pieces at spaces (or, for a run without spaces, at characters). Regular expressions over the
 * text once each: linear, and the same output on every runtime (unlike Intl.Segmenter, whose
 * rules follow the ICU version).
 */
import { countTokens } from './tokens.js'

/** Sentences end at . ! ? (and their CJK forms) or ; followed by white space, or at a line break. */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?;\u3002\uFF01\uFF1F])\s+|\s*\n\s*/)
    .map((s) => s.trim())
    .filter((s) => s !== '')
}

/** Pieces of `text` of at most `maxTokens` each, cut at white space where there is any. */
export function splitToFit(text: string, maxTokens: number): { text: string; tokens: number }[] {
  const pieces: { text: string; tokens: number }[] = []
  let buffer = ''
  let bufferTokens = 0
  const flush = () => {
    const piece = buffer.trim()
    if (piece) pieces.push({ text: piece, tokens: countTokens(piece) })
    buffer = ''
    bufferTokens = 0
  }
  for (const word of text.match(/\S+\s*/g) ?? []) {
    const tokens = countTokens(word)
    if (tokens > maxTokens) {
      flush()
      pieces.push(...splitWord(word.trim(), maxTokens))
      continue
    }
    if (bufferTokens + tokens > maxTokens) flush()
    buffer += word
    bufferTokens += tokens
  }
  flush()
  // Counting words one by one can undercount their concatenation in rare cases: re-cut those.
  return pieces.flatMap((p) => (p.tokens <= maxTokens ? [p] : splitWord(p.text, maxTokens)))
}

/** A run without spaces (a long URL, base64): the longest prefixes that fit, by halving. */
function splitWord(word: string, maxTokens: number): { text: string; tokens: number }[] {
  const chars = Array.from(word) // code points, so no surrogate pair is cut in two
  const pieces: { text: string; tokens: number }[] = []
  let start = 0
  while (start < chars.length) {
    let length = Math.min(chars.length - start, maxTokens * 4)
    let piece = chars.slice(start, start + length).join('')
    let tokens = countTokens(piece)
    while (tokens > maxTokens && length > 1) {
      length = Math.max(1, Math.floor(length / 2))
      piece = chars.slice(start, start + length).join('')
      tokens = countTokens(piece)
    }
    pieces.push({ text: piece, tokens })
    start += length
  }
  return pieces
}
