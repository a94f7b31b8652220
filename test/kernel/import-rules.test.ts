/**
 * The layout's import rules (ARCHITECTURE.md, "Import rules"), checked over the source tree:
 * - a plugin imports only `kernel/`, `protocols/` and `schemas/` (and its own folder), never
 *   another plugin;
 * - `protocols/` imports neither plugins nor kernel services (it may use the kernel's contract
 *   types and errors, and schemas);
 * - the kernel imports no plugin except through the registry (`plugins/registry.ts`, read by
 *   the composition root), and nothing from `sim/` except where the embedded default starts it
 *   (kernel/services/backends/embedded-simulator.ts; the composition root names its type);
 * - no import cycles among the gateway's modules.
 * And the kernel outside `kernel/services/` stays readable in one sitting (about 2,000 lines).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { repoRoot } from '../../kernel/contract/paths.js'

const test = suite('kernel: import rules')

const ROOTS = ['kernel', 'protocols', 'plugins', 'schemas']
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"\n]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

function sources(dir: string): string[] {
  const out: string[] = []
  for (const e of fs.readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name)
    if (e.isDirectory()) out.push(...sources(rel))
    else if (e.name.endsWith('.ts')) out.push(rel)
  }
  return out
}

/** Relative imports of a file, as repository paths (`.js` read as the `.ts` it compiles from). */
function importsOf(file: string): { target: string; typeOnly: boolean }[] {
  const text = fs.readFileSync(path.join(repoRoot, file), 'utf8')
  const out: { target: string; typeOnly: boolean }[] = []
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2]!
    if (!spec.startsWith('.')) continue
    out.push({ target: path.normalize(path.join(path.dirname(file), spec)).replace(/\.js$/, '.ts'), typeOnly: /^\s*(import|export)\s+type\b/.test(m[0]) })
  }
  return out
}

const files = ROOTS.flatMap(sources)
const graph = new Map(files.map((f) => [f, importsOf(f)]))
const top = (p: string) => p.split(path.sep)[0]!
const pluginOf = (p: string) => (p.startsWith(`plugins${path.sep}`) ? p.split(path.sep)[1] : undefined)
const isService = (p: string) => p.startsWith(path.join('kernel', 'services') + path.sep)

test('a plugin imports only kernel/, protocols/, schemas/ and its own folder', () => {
  const bad: string[] = []
  for (const [file, imports] of graph) {
    const own = pluginOf(file)
    if (!own || file === path.join('plugins', 'registry.ts')) continue
    for (const { target } of imports) {
      const ok = ['kernel', 'protocols', 'schemas'].includes(top(target)) || pluginOf(target) === own
      if (!ok) bad.push(`${file} → ${target}`)
    }
  }
  assert.equal(bad, [])
})

test('protocols/ imports no plugin and no kernel service', () => {
  const bad: string[] = []
  for (const [file, imports] of graph) {
    if (top(file) !== 'protocols') continue
    for (const { target } of imports) if (top(target) === 'plugins' || isService(target) || top(target) === 'sim') bad.push(`${file} → ${target}`)
  }
  assert.equal(bad, [])
})

test('the kernel imports plugins only through the registry, and the simulator only where the embedded default starts it', () => {
  const bad: string[] = []
  for (const [file, imports] of graph) {
    if (top(file) !== 'kernel') continue
    for (const { target, typeOnly } of imports) {
      if (top(target) === 'plugins' && target !== path.join('plugins', 'registry.ts')) bad.push(`${file} → ${target}`)
      if (top(target) === 'plugins' && file !== path.join('kernel', 'gateway.ts')) bad.push(`${file} → ${target} (only the composition root reads the registry)`)
      const startsSim = file === path.join('kernel', 'services', 'backends', 'embedded-simulator.ts') && target === path.join('sim', 'index.ts')
      if (top(target) === 'sim' && !startsSim && !(file === path.join('kernel', 'gateway.ts') && typeOnly)) bad.push(`${file} → ${target}`)
    }
  }
  assert.equal(bad, [])
})

test('no import cycles (type-only imports included: they are design dependencies too)', () => {
  const cycles: string[] = []
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (f: string) => {
    state.set(f, 'open')
    stack.push(f)
    for (const { target } of graph.get(f) ?? []) {
      if (!graph.has(target)) continue
      const s = state.get(target)
      if (s === 'open') cycles.push([...stack.slice(stack.indexOf(target)), target].join(' → '))
      else if (s === undefined) visit(target)
    }
    stack.pop()
    state.set(f, 'done')
  }
  for (const f of graph.keys()) if (!state.has(f)) visit(f)
  assert.equal(cycles, [])
})

/** Lines as `wc -l` counts them: a final newline ends the last line, it does not start another. */
const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0)

test('the kernel outside kernel/services/ is about 2,000 lines or fewer', () => {
  const lines = sources('kernel')
    .filter((f) => !isService(f))
    .reduce((n, f) => n + lineCount(fs.readFileSync(path.join(repoRoot, f), 'utf8')), 0)
  // 2,300 since the WebSocket transport (kernel/websocket.ts) joined the HTTP one.
  assert.ok(lines <= 2300, `kernel/ outside services: ${lines} lines`)
})

test.run()
