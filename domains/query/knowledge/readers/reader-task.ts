/**
 * What a reader process does with one document, and how its refusal crosses back to the
 * gateway: reading, and the CPU work that follows it on the same text (chunking for
 * the knowledge base, the prompt text and its token count for a chat upload), so that none of
 * it runs on the event loop.
 */
import { GatewayError } from '../../../../kernel/contract/index.js'
import type { Block } from '../blocks.js'
import { chunkDocument, type ChunkingOptions } from '../chunker.js'
import type { Chunk } from '../model.js'
import { countTokens } from '../tokens.js'
import { embeddingInputs } from '../windows.js'
import { documentText } from './document-text.js'
import type { DocumentFormat } from './format.js'
import { LIMIT_NAMES, type ReaderLimits } from './limits.js'
import { readDocument, type DocumentBytes } from './read-document.js'

export type ReaderTask =
  | { readonly want: 'blocks'; readonly doc: DocumentBytes; readonly limits: ReaderLimits }
  | {
      readonly want: 'chunks'
      readonly doc: DocumentBytes
      readonly limits: ReaderLimits
      readonly chunking: ChunkingOptions
      /** `knowledge.vector_windows.max_tokens` (0 = off): each chunk's embedding inputs are made here too. */
      readonly windowTokens: number
    }
  | { readonly want: 'text'; readonly doc: DocumentBytes; readonly limits: ReaderLimits }

export interface ReadOutcome {
  readonly format: DocumentFormat
  readonly blocks?: Block[]
  readonly chunks?: Chunk[]
  /** `want: 'chunks'`: the texts the embedding model reads for each chunk (windows.ts, embeddingInputs). */
  readonly inputs?: string[][]
  /** `want: 'text'`: the document's text for a prompt, and its tokens. */
  readonly text?: string
  readonly tokens?: number
}

export async function runTask(task: ReaderTask): Promise<ReadOutcome> {
  const { format, blocks } = await readDocument(task.doc, task.limits)
  if (task.want === 'blocks') return { format, blocks }
  if (task.want === 'chunks') {
    const chunks = chunkDocument(blocks, task.chunking)
    return { format, chunks, inputs: chunks.map((c) => embeddingInputs(c.content, task.windowTokens)) }
  }
  const text = documentText(blocks)
  return { format, text, tokens: countTokens(text) }
}

/** A refusal as it crosses threads. */
export interface Refusal {
  readonly status: number
  readonly message: string
}

/**
 * A reader's error as the client will see it. The readers' own refusals keep their status; a
 * stack exhausted by nesting the scans did not catch is the depth limit; anything else a parser
 * throws on a document is that document's fault, a 422 with the parser's reason.
 */
export function refusalOf(err: unknown, limits: ReaderLimits): Refusal {
  if (err instanceof GatewayError) return { status: err.status, message: err.message }
  if (err instanceof RangeError && /call stack/i.test(err.message))
    return {
      status: 422,
      message: `the document nests too deeply to be read; the limit is ${limits.maxDepth} (knowledge.readers.${LIMIT_NAMES.maxDepth})`,
    }
  const why = err instanceof Error ? err.message : String(err)
  return { status: 422, message: `the document could not be read: ${why.slice(0, 200)}` }
}

export function errorOf(refusal: Refusal): GatewayError {
  return new GatewayError(refusal.status, refusal.message, refusal.status < 500 ? { code: 'invalid_request' } : {})
}
