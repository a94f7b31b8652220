/**
 * What every reader yields and the chunker takes: a document as a flat list of blocks in
 * reading order. Structure is kept only where chunking needs it: headings (for heading paths),
 * and code and tables (which are never split).
 */
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
