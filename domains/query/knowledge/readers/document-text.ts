/**
 * A document's text for a prompt (chat uploads): the blocks joined in reading order, headings
 * in Markdown style, and each PDF page opening with a `[page N]` line so that the model (and
 * the user) can cite pages.
 */
import type { Block } from '../blocks.js'

export function documentText(blocks: readonly Block[]): string {
  const out: string[] = []
  let page: number | undefined
  for (const b of blocks) {
    if (b.pageNumber !== undefined && b.pageNumber !== page) {
      page = b.pageNumber
      out.push(`[page ${page}]`)
    }
    out.push(b.kind === 'heading' ? `${'#'.repeat(b.level ?? 1)} ${b.text}` : b.text)
  }
  return out.join('\n\n')
}
