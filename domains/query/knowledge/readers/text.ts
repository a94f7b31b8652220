/**
 * Plain text: paragraphs are runs of lines separated by blank lines. Also used for the text
 * of each PDF page.
 */
import type { Block } from '../blocks.js'

export function readText(text: string, pageNumber?: number): Block[] {
  const blocks: Block[] = []
  for (const part of text.split(/\r?\n[ \t]*\r?\n/)) {
    const paragraph = part.trim()
    if (paragraph)
      blocks.push(
        pageNumber === undefined
          ? { kind: 'paragraph', text: paragraph }
          : { kind: 'paragraph', text: paragraph, pageNumber },
      )
  }
  return blocks
}
