/**
 * The limits on reading one document (server.yaml `knowledge.readers`), and the refusal a
 * document over one of them gets. Size limits (text, pages, inflated streams) are a 413: the
 * document is too large to be read, and a smaller one would be. Limits on shape and cost
 * (nesting, time, memory) are a 422: the bytes arrived whole and are in a format we read, but
 * this document cannot be processed within the bounds (docs/decisions.md, "Document limits").
 */
import { GatewayError } from '../../../../kernel/contract/index.js'

export interface ReaderLimits {
  /** Nesting of HTML elements and of Markdown containers (block quotes, lists). */
  readonly maxDepth: number
  /** UTF-8 bytes of text a document may yield (a text or Markdown source is its text). */
  readonly maxTextBytes: number
  /** Pages a PDF may have; checked before any page is read. */
  readonly maxPages: number
  /** Bytes the compressed streams of a PDF that text extraction decodes may inflate to, in total. */
  readonly maxInflatedBytes: number
  /** Wall-clock milliseconds one document may take to read (a reader's start included); past it the reader is killed. */
  readonly timeoutMs: number
  /** Heap (V8 old generation, `--max-old-space-size`) of one reader process, in MiB; past it the reader dies and is replaced. */
  readonly memoryMb: number
  /** Reader processes at most (`workers`, the setting's name since they were threads); documents beyond wait their turn. */
  readonly workers: number
}

export const DEFAULT_READER_LIMITS: ReaderLimits = {
  maxDepth: 128,
  maxTextBytes: 8 * 1024 * 1024,
  maxPages: 2000,
  maxInflatedBytes: 128 * 1024 * 1024,
  timeoutMs: 30_000,
  memoryMb: 512,
  workers: 2,
}

/** The server.yaml names of the limits, as a refusal names them. */
export const LIMIT_NAMES = {
  maxDepth: 'max_depth',
  maxTextBytes: 'max_text_bytes',
  maxPages: 'max_pages',
  maxInflatedBytes: 'max_inflated_bytes',
  timeoutMs: 'timeout_ms',
  memoryMb: 'memory_mb',
} as const

export type LimitKey = keyof typeof LIMIT_NAMES

const SIZE_LIMITS: ReadonlySet<LimitKey> = new Set(['maxTextBytes', 'maxPages', 'maxInflatedBytes'])

/** `what` says what was found ("it nests 5000 levels"); the message names the setting and its value. */
export function overLimit(key: LimitKey, limit: number, what: string): GatewayError {
  const status = SIZE_LIMITS.has(key) ? 413 : 422
  return new GatewayError(status, `${what}; the limit is ${limit} (knowledge.readers.${LIMIT_NAMES[key]})`, {
    code: 'invalid_request',
  })
}

/** UTF-8 length of a string without encoding it. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}
