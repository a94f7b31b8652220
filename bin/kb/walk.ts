/**
 * The files of a folder the knowledge base can read, found recursively, each with its
 * source_name: the path relative to the folder with `/` on every platform, so a re-run (or a
 * run from Windows) names the same documents and replaces them instead of adding copies.
 */
import fs from 'node:fs/promises'
import path from 'node:path'

/** The extensions the server reads (domains/query/knowledge/readers/format.ts). */
export const SUPPORTED_EXTENSIONS = ['.txt', '.md', '.markdown', '.html', '.htm', '.pdf'] as const

export interface FoundFile {
  absolutePath: string
  sourceName: string
  bytes: number
}

export interface Skipped {
  sourceName: string
  reason: string
}

export interface Walk {
  files: FoundFile[]
  skipped: Skipped[]
}

export async function walkFolder(root: string): Promise<Walk> {
  const files: FoundFile[] = []
  const skipped: Skipped[] = []
  async function visit(dir: string): Promise<void> {
    const entries = await fs.readdir(dir, { withFileTypes: true })
    for (const entry of entries) {
      // Hidden entries (.git, .DS_Store, editor swap files) are never documents; listing a
      // .git folder file by file would bury the real skips.
      if (entry.name.startsWith('.')) continue
      const full = path.join(dir, entry.name)
      const sourceName = path.relative(root, full).split(path.sep).join('/')
      if (entry.isDirectory()) await visit(full)
      else if (entry.isSymbolicLink()) skipped.push({ sourceName, reason: 'symbolic link (not followed)' })
      else if (!entry.isFile()) skipped.push({ sourceName, reason: 'not a regular file' })
      else if (!isSupported(entry.name))
        skipped.push({ sourceName, reason: `unsupported format (${path.extname(entry.name) || 'no extension'})` })
      else files.push({ absolutePath: full, sourceName, bytes: (await fs.stat(full)).size })
    }
  }
  await visit(root)
  // A stable order: the same folder loads, and reports, the same way every time.
  const byName = (a: { sourceName: string }, b: { sourceName: string }): number =>
    a.sourceName < b.sourceName ? -1 : a.sourceName > b.sourceName ? 1 : 0
  return { files: files.sort(byName), skipped: skipped.sort(byName) }
}

function isSupported(name: string): boolean {
  return (SUPPORTED_EXTENSIONS as readonly string[]).includes(path.extname(name).toLowerCase())
}
