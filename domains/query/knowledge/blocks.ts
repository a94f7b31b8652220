/**
 * What every reader yields and the chunker takes: a document as a flat list of blocks in
 * reading order. Structure is kept only where chunking needs it: headings (for heading paths),
 * and code and tables (split only when one is bigger than a chunk: `splitOversizeBlock`).
 */
import { splitToFit } from './sentences.js'
import { countTokens } from './tokens.js'

export type BlockKind = 'heading' | 'paragraph' | 'code' | 'table' | 'list'

export interface Block {
  readonly kind: BlockKind
  /** Heading text alone for headings; for the others, the text as a chunk should carry it. */
  readonly text: string
  /** 1 to 6 for headings; absent for the other kinds. */
  readonly level?: number
  /** 1-based page of a PDF; absent for the other formats. */
  readonly pageNumber?: number
}

/**
 * A code block or table bigger than `maxTokens`, as pieces that each fit and each read on
 * their own: code by lines, every piece inside the block's own fence (with its language, so
 * "```sql" stays "```sql"); a table by rows, every piece under the table's header row and
 * separator. A line or row longer than a whole piece is cut at spaces (sentences.ts). Counts
 * are by the chunker's tokenizer.
 */
export function splitOversizeBlock(block: Block, maxTokens: number): Block[] {
  const count = countTokens
  if (block.kind !== 'code' && block.kind !== 'table') return [block]
  if (count(block.text) <= maxTokens) return [block]
  const lines = block.text.split('\n')
  let open = ''
  let close = ''
  let body = lines
  if (block.kind === 'code') {
    const fence = /^\s*(`{3,}|~{3,})/.exec(lines[0] ?? '')
    if (fence && lines.length >= 2) {
      open = lines[0]!
      const last = lines[lines.length - 1]!
      const closes = lines.length >= 2 && last.trim().startsWith(fence[1]!) && last.trim().replace(/[`~]/g, '') === ''
      close = closes ? last : fence[1]!
      body = lines.slice(1, closes ? -1 : undefined)
    }
  } else if (lines.length >= 2 && /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/.test(lines[1]!)) {
    open = `${lines[0]!}\n${lines[1]!}`
    body = lines.slice(2)
  } else {
    open = lines[0]!
    body = lines.slice(1)
  }
  // A frame too big to repeat (a header row of hundreds of tokens) is not repeated.
  if (count([open, close].join('\n')) > maxTokens / 2) {
    open = ''
    close = ''
    body = lines
  }
  const wrap = (inner: string) => [open, inner, close].filter((part) => part !== '').join('\n')
  // Room for the lines once the frame (fence or header, and the line breaks) is paid for.
  const room = Math.max(8, maxTokens - count(wrap('')) - 2)
  const pieces: string[] = []
  let current: string[] = []
  let currentTokens = 0
  const flush = () => {
    if (current.length > 0) pieces.push(current.join('\n'))
    current = []
    currentTokens = 0
  }
  for (const line of body) {
    const tokens = count(line) + 1
    if (tokens > room) {
      flush()
      for (const piece of splitToFit(line, room)) pieces.push(piece.text)
      continue
    }
    if (currentTokens + tokens > room) flush()
    current.push(line)
    currentTokens += tokens
  }
  flush()
  // Counting lines one by one can undercount their join: halve any piece that still does not fit.
  const fitted: string[] = []
  const fit = (inner: string) => {
    const innerLines = inner.split('\n')
    if (count(wrap(inner)) <= maxTokens || innerLines.length < 2) {
      fitted.push(inner)
      return
    }
    const half = Math.ceil(innerLines.length / 2)
    fit(innerLines.slice(0, half).join('\n'))
    fit(innerLines.slice(half).join('\n'))
  }
  pieces.forEach(fit)
  return fitted.map((inner) => ({ ...block, text: wrap(inner) }))
}
