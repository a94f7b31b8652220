/**
 * Blocks to chunks, following the document's structure: a heading always starts a new chunk
 * (and its path goes with every chunk under it); within a section, paragraphs are packed
 * whole while they fit; a paragraph that does not fit in the chunk being filled starts the
 * next one; only a paragraph bigger than a whole chunk is cut, at sentences (then at spaces).
 *
 * Code blocks and tables are kept whole while they fit in a chunk. One bigger than `maxTokens`
 * is split (blocks.ts, `splitOversizeBlock`): code by lines, each piece inside the block's own
 * fence with its language; a table by rows, each piece under the header row and its
 * separator; so every piece reads on its own and no chunk exceeds `maxTokens` (the embedding
 * model's own limit is met separately, at embedding: knowledge-base.ts, `fitInputs`). Nothing
 * of the document is dropped.

 * Overlap: the next chunk of the same section repeats the last whole sentences of the previous
 * one, up to `overlapTokens` (none when the last sentence alone is longer; never a code block,
 * table or heading; never across a heading).
 *
 * One pass over the blocks, each piece of text counted once: linear in the document's size.
 */
import { splitOversizeBlock, type Block } from './blocks.js'
import type { Chunk } from './model.js'
import { splitSentences, splitToFit } from './sentences.js'
import { countTokens } from './tokens.js'

export interface ChunkingOptions {
  /** Largest chunk, in tokens (`knowledge.chunking.max_tokens`). */
  readonly maxTokens: number
  /** Tokens repeated from the end of one chunk at the start of the next (`knowledge.chunking.overlap_tokens`). */
  readonly overlapTokens: number
}

/** reference/retrieval.md §5: about 512-800 tokens with 10-20% overlap; 512 and 64 (12.5%). */
export const DEFAULT_CHUNKING: ChunkingOptions = { maxTokens: 512, overlapTokens: 64 }

/** What the chunker packs: a sentence (or piece), a heading line, or a code block or table (or a piece of one). */
interface Unit {
  readonly text: string
  readonly tokens: number
  readonly kind: 'heading' | 'prose' | 'whole'
  /** Put before the unit when it is not the first of its chunk. */
  readonly separator: string
  readonly pageNumber: number | undefined
}

/** Budget for a separator between units ("\n\n" or a space is one cl100k token). */
const SEPARATOR_TOKENS = 1

export function chunkDocument(blocks: readonly Block[], options: ChunkingOptions = DEFAULT_CHUNKING): Chunk[] {
  const { maxTokens, overlapTokens } = options
  if (!Number.isInteger(maxTokens) || maxTokens < 16)
    throw new RangeError(`maxTokens must be an integer of at least 16, not ${maxTokens}`)
  if (!Number.isInteger(overlapTokens) || overlapTokens < 0 || overlapTokens > maxTokens / 2) {
    throw new RangeError(`overlapTokens must be an integer from 0 to half of maxTokens, not ${overlapTokens}`)
  }

  const chunks: Chunk[] = []
  const headings: string[] = [] // headings[level - 1]
  let current: Unit[] = []
  let currentTokens = 0
  let fresh = 0 // units of `current` not repeated from the previous chunk
  let hasBody = false // `current` holds more than headings
  let lastKind: Block['kind'] | undefined

  const cost = (unit: Unit) => (current.length === 0 ? unit.tokens : unit.tokens + SEPARATOR_TOKENS)
  const add = (unit: Unit) => {
    currentTokens += cost(unit)
    current.push(unit)
    fresh++
    if (unit.kind !== 'heading') hasBody = true
  }

  /** Emits the chunk being filled; with `overlap`, the next one starts with its last sentences. */
  const emit = (overlap: boolean) => {
    if (fresh > 0) {
      const content = current.map((u, i) => (i === 0 ? u.text : u.separator + u.text)).join('')
      const pageNumber = current[0]!.pageNumber
      chunks.push({
        index: chunks.length,
        content,
        headingPath: headings.filter((h) => h !== undefined),
        ...(pageNumber === undefined ? {} : { pageNumber }),
        tokens: countTokens(content),
      })
    }
    const tail: Unit[] = []
    if (overlap && fresh > 0) {
      let tokens = 0
      for (let i = current.length - 1; i >= 0; i--) {
        const unit = current[i]!
        if (unit.kind !== 'prose' || tokens + unit.tokens + SEPARATOR_TOKENS > overlapTokens) break
        tail.unshift(unit)
        tokens += unit.tokens + SEPARATOR_TOKENS
      }
    }
    current = []
    currentTokens = 0
    for (const unit of tail) {
      currentTokens += cost(unit)
      current.push(unit)
    }
    fresh = 0
    hasBody = false
  }

  /** Starts a chunk for `tokens` more: emits, keeping only as much overlap as leaves room. */
  const makeRoom = (tokens: number) => {
    emit(true)
    while (current.length > 0 && currentTokens + SEPARATOR_TOKENS + tokens > maxTokens) {
      const dropped = current.shift()!
      currentTokens -= dropped.tokens + (current.length > 0 ? SEPARATOR_TOKENS : 0)
    }
    if (current.length === 0) currentTokens = 0
  }

  const fits = (tokens: number) => current.length === 0 || currentTokens + SEPARATOR_TOKENS + tokens <= maxTokens

  for (const block of blocks) {
    const pageNumber = block.pageNumber
    if (block.kind !== 'list' && block.kind !== 'paragraph') lastKind = block.kind
    if (block.kind === 'heading') {
      // A heading ends its predecessor's section; headings with nothing yet under them
      // (a chapter title right before its first section) stay together with what follows.
      if (hasBody) emit(false)
      else if (fresh === 0) emit(false) // drop overlap carried from the previous section
      const level = Math.min(Math.max(block.level ?? 1, 1), 6)
      headings.length = level
      headings[level - 1] = block.text
      const line = `${'#'.repeat(level)} ${block.text}`
      for (const piece of splitToFit(line, maxTokens)) {
        if (!fits(piece.tokens)) emit(false)
        add({ text: piece.text, tokens: piece.tokens, kind: 'heading', separator: '\n\n', pageNumber })
      }
      continue
    }

    if (block.kind === 'code' || block.kind === 'table') {
      const pieces = splitOversizeBlock(block, maxTokens)
      for (const piece of pieces) {
        const unit: Unit = {
          text: piece.text,
          tokens: countTokens(piece.text),
          kind: 'whole',
          separator: '\n\n',
          pageNumber,
        }
        if (!fits(unit.tokens)) makeRoom(unit.tokens)
        add(unit)
      }
      continue
    }

    // Prose: a paragraph or a list item, as sentences; a list item follows its list on the next line.
    const separator = block.kind === 'list' && lastKind === 'list' ? '\n' : '\n\n'
    lastKind = block.kind
    const units: Unit[] = []
    for (const sentence of splitSentences(block.text)) {
      for (const piece of splitToFit(sentence, maxTokens)) {
        units.push({
          text: piece.text,
          tokens: piece.tokens,
          kind: 'prose',
          separator: units.length === 0 ? separator : ' ',
          pageNumber,
        })
      }
    }
    const total = units.reduce((sum, u) => sum + u.tokens, 0) + SEPARATOR_TOKENS * Math.max(0, units.length - 1)
    if (total <= maxTokens) {
      // Whole paragraph: here if it fits, else at the start of the next chunk.
      if (!fits(total)) makeRoom(total)
      units.forEach(add)
    } else {
      for (const unit of units) {
        if (!fits(unit.tokens)) makeRoom(unit.tokens)
        add(unit)
      }
    }
  }
  emit(false)
  return chunks
}
