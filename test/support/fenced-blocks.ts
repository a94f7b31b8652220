/** The fenced code blocks of a Markdown document (the docs' tests run or compile them). */
export interface Block {
  /** 1-based line of the opening fence: the block's first line is `line + 1`. */
  line: number
  lang: string
  words: string[]
  text: string
}

/** Fenced blocks at the start of a line, with their info string. */
export function fencedBlocks(markdown: string, file = 'markdown'): Block[] {
  const lines = markdown.split('\n')
  const blocks: Block[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(\w*)(.*)$/.exec(lines[i]!)
    if (!open) continue
    const end = lines.findIndex((l, j) => j > i && l.trimEnd() === open[1])
    if (end < 0) throw new Error(`${file}:${i + 1}: fence never closed`)
    blocks.push({
      line: i + 1,
      lang: open[2]!,
      words: open[3]!.trim().split(/\s+/).filter(Boolean),
      text: lines.slice(i + 1, end).join('\n'),
    })
    i = end
  }
  return blocks
}
