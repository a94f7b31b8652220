/**
 * The portal's built front end (dist/portal, written by portal/build.mjs during `npm run build`):
 * read once at setup into memory (a few hundred kilobytes), so a request can only ever name a
 * file that was there, never a path.
 */
import fs from 'node:fs'
import path from 'node:path'
import { repoRoot } from '../../kernel/contract/index.js'

export const builtDir = path.join(repoRoot, 'dist', 'portal')

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
}

export interface BuiltFile {
  readonly contentType: string
  readonly data: Uint8Array
  /** Names with a content hash (`app-3F2A.js`) never change: cached for a year. */
  readonly immutable: boolean
}

const HASHED = /-[A-Z0-9]{8}\.[a-z]+$/

export function readBuilt(dir = builtDir): Map<string, BuiltFile> {
  const files = new Map<string, BuiltFile>()
  if (!fs.existsSync(dir)) return files
  for (const name of fs.readdirSync(dir)) {
    const full = path.join(dir, name)
    const type = TYPES[path.extname(name)]
    if (!type || !fs.statSync(full).isFile()) continue
    files.set(name, { contentType: type, data: fs.readFileSync(full), immutable: HASHED.test(name) })
  }
  return files
}
