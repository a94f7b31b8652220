/**
 * Builds the operator portal's front end (part of `npm run build`): portal/src → dist/portal,
 * one bundled script and one stylesheet named by their content hash (served as immutable), and
 * index.html naming them. esbuild bundles Preact from node_modules: no CDN, works offline.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const here = path.dirname(fileURLToPath(import.meta.url))
const out = path.join(here, '..', 'dist', 'portal')
fs.rmSync(out, { recursive: true, force: true })

const result = await build({
  entryPoints: { app: path.join(here, 'src', 'main.tsx'), style: path.join(here, 'src', 'style.css') },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['chrome110', 'firefox115', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  entryNames: '[name]-[hash]',
  outdir: out,
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
})

const built = Object.keys(result.metafile.outputs).map((f) => path.basename(f))
const script = built.find((f) => f.startsWith('app-') && f.endsWith('.js'))
const style = built.find((f) => f.startsWith('style-') && f.endsWith('.css'))
const page = fs
  .readFileSync(path.join(here, 'index.html'), 'utf8')
  .replace('{{script}}', `/portal/assets/${script}`)
  .replace('{{style}}', `/portal/assets/${style}`)
fs.writeFileSync(path.join(out, 'index.html'), page)
