/**
 * Windows of a chunk for the vector leg: whole sentences packed in order up to `maxTokens`
 * each, without overlap (a sentence longer than that is cut at spaces, sentences.ts).
 *
 * Why: a sentence encoder averages everything it is given into one vector, so a 512-token chunk
 * matches a one-sentence question only as well as its average does. Scored by its best window,
 * a chunk matches as well as its most relevant passage (docs/performance.md, "Retrieval
 * quality": nDCG@10 of the vector leg 0.116 → 0.159 with 96-token windows on the bench).
 */
import { splitSentences, splitToFit } from './sentences.js'
import { countTokens } from './tokens.js'

/**
 * What the model reads for a chunk: the chunk whole when windows are off (`maxTokens` 0) or it
 * is one window, else its windows only (knowledge-base.ts, embedChunks, makes the chunk's own
 * vector from theirs). Computed where the chunk is made, in a reader process (readers/reader-task.ts).
 */
export function embeddingInputs(content: string, maxTokens: number): string[] {
  if (maxTokens <= 0) return [content]
  const windows = vectorWindows(content, maxTokens)
  return windows.length <= 1 ? [content] : windows
}

/** The window texts of `text`, in order; a text that fits in `maxTokens` is one window (its sentences joined by spaces). */
export function vectorWindows(text: string, maxTokens: number): string[] {
  if (!Number.isInteger(maxTokens) || maxTokens < 1)
    throw new RangeError(`maxTokens must be a positive integer, not ${maxTokens}`)
  const windows: string[] = []
  let current = ''
  let tokens = 0
  for (const sentence of splitSentences(text).flatMap((s) => splitToFit(s, maxTokens).map((p) => p.text))) {
    const n = countTokens(sentence)
    if (tokens + n > maxTokens && current) {
      windows.push(current)
      current = ''
      tokens = 0
    }
    current += (current ? ' ' : '') + sentence
    tokens += n
  }
  if (current) windows.push(current)
  return windows
}
