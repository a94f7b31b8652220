/**
 * Markdown (CommonMark with GFM tables) through mdast. Each top-level node becomes a block
 * whose text is the node's own source, so a chunk quotes the document exactly: a fenced code
 * block keeps its fences and a table its pipes. A list becomes one block per item, so a long
 * list can be cut between items rather than inside one. Nesting is bounded (depth.ts): the
 * containers opened on each line are counted before parsing, the parsed tree after.
 */
import { fromMarkdown } from 'mdast-util-from-markdown'
import { gfmFromMarkdown } from 'mdast-util-gfm'
import { gfm } from 'micromark-extension-gfm'
import type { Nodes, RootContent } from 'mdast'
import type { Block } from '../blocks.js'
import { markdownNesting, treeDepth } from './depth.js'
import { DEFAULT_READER_LIMITS, overLimit } from './limits.js'

export function readMarkdown(source: string, maxDepth = DEFAULT_READER_LIMITS.maxDepth): Block[] {
  const opened = markdownNesting(source, maxDepth)
  if (opened > maxDepth) throw tooDeep(maxDepth, `a line opens more than ${maxDepth} nested block quotes or lists`)
  const tree = fromMarkdown(source, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] })
  // The tree nests deeper than the containers: a list item holds a paragraph, a table rows and cells.
  if (treeDepth(tree, maxDepth + 4) > maxDepth + 4)
    throw tooDeep(maxDepth, `the Markdown nests more than ${maxDepth} levels`)
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

const tooDeep = (maxDepth: number, what: string) => overLimit('maxDepth', maxDepth, what)

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
