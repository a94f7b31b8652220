/**
 * Markdown (CommonMark with GFM tables) through mdast. Each top-level node becomes a block
 * whose text is the node's own source, so a chunk quotes the document exactly: a fenced code
 * block keeps its fences and a table its pipes. A list becomes one block per item, so a long
 * list can be cut between items rather than inside one.
 */
import { fromMarkdown } from 'mdast-util-from-markdown'
import { gfmFromMarkdown } from 'mdast-util-gfm'
import { gfm } from 'micromark-extension-gfm'
import type { Nodes, RootContent } from 'mdast'
import type { Block } from '../blocks.js'

export function readMarkdown(source: string): Block[] {
  const tree = fromMarkdown(source, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] })
  const blocks: Block[] = []
  for (const node of tree.children) {
    switch (node.type) {
      case 'heading': {
        const text = plainText(node).trim()
        if (text) blocks.push({ kind: 'heading', level: node.depth, text })
        break
      }
      case 'code':
        blocks.push({ kind: 'code', text: sourceOf(source, node) })
        break
      case 'table':
        blocks.push({ kind: 'table', text: sourceOf(source, node) })
        break
      case 'list':
        for (const item of node.children) blocks.push({ kind: 'list', text: sourceOf(source, item) })
        break
      case 'thematicBreak':
        break
      default: {
        // paragraphs, block quotes, raw HTML, definitions, footnotes: prose to the chunker
        const text = sourceOf(source, node).trim()
        if (text) blocks.push({ kind: 'paragraph', text })
      }
    }
  }
  return blocks
}

function sourceOf(source: string, node: RootContent): string {
  const start = node.position?.start.offset
  const end = node.position?.end.offset
  return start === undefined || end === undefined ? plainText(node) : source.slice(start, end)
}

/** The words of a node without its markup (a heading's text for its path). */
function plainText(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string') return node.value
  if ('children' in node) return (node.children as Nodes[]).map(plainText).join('')
  return ''
}
