/**
 * The plugin author guide's examples are the contract as it is: every ```ts block of
 * docs/plugin-author-guide.md is written into a third party's package (outside the repository,
 * resolving `sluice` through its exports), type-checked and compiled with the repository's tsc,
 * and the guide's own test of its plugin is run. An error names the guide's line. A block
 * marked ```ts skip is left out (keep those few: partial fragments only); a block with
 * `file=<path>` is that file of the package, any other is a module of its own.
 */
import fs from 'node:fs'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { repoRoot } from '../../kernel/contract/paths.js'
import { thirdPartyPackage, type ThirdPartyPackage } from '../support/third-party-package.js'
import { fencedBlocks, type Block } from '../support/fenced-blocks.js'

const GUIDE = 'docs/plugin-author-guide.md'

const fileOf = (b: Block) => b.words.find((w) => w.startsWith('file='))?.slice('file='.length)

/** What a guide example may import: the package's three entry points, its own files, Node, uvu. */
const allowedImport = (specifier: string) =>
  /^(sluice(\/contract|\/testing)?|uvu(\/assert)?|node:[\w/]+|\.\.?\/.+)$/.test(specifier)

const test = suite('docs: the plugin author guide compiles, and its test passes')
const guide = fs.readFileSync(path.join(repoRoot, GUIDE), 'utf8')
const blocks = fencedBlocks(guide, GUIDE)
const ts = blocks.filter((b) => b.lang === 'ts')
const compiled = ts.filter((b) => !b.words.includes('skip'))
let pkg: ThirdPartyPackage
/** Package file → the guide's block. */
const origin = new Map<string, Block>()

test.before(() => {
  pkg = thirdPartyPackage('guide-examples', ['@types/node', 'json-schema-to-ts', 'uvu'])
  for (const b of blocks.filter((b) => b.lang === 'json' && fileOf(b))) pkg.write(fileOf(b)!, `${b.text}\n`)
  for (const b of compiled) {
    const file = fileOf(b) ?? `src/guide/line-${b.line}.ts`
    assert.not.ok(origin.has(file), `${GUIDE}:${b.line}: ${file} is also the block at line ${origin.get(file)?.line}`)
    origin.set(file, b)
    pkg.write(file, fileOf(b) ? `${b.text}\n` : `${b.text}\nexport {}\n`)
  }
})
test.after(() => pkg.remove())

test('the guide has its examples, and few blocks are left out', () => {
  assert.ok(compiled.length >= 6, `only ${compiled.length} compiled blocks`)
  assert.ok(ts.length - compiled.length <= 3, `${ts.length - compiled.length} blocks marked skip`)
  for (const file of ['package.json', 'tsconfig.json'])
    assert.ok(
      blocks.some((b) => fileOf(b) === file),
      `the guide shows ${file}`,
    )
})

test('the examples import only what a third party can: sluice, sluice/contract, sluice/testing', () => {
  for (const [file, b] of origin)
    for (const m of b.text.matchAll(/(?:^|\s)(?:import|export)\s[^'"]*?from\s+'([^']+)'|^import\s+'([^']+)'/gm)) {
      const specifier = m[1] ?? m[2]!
      assert.ok(allowedImport(specifier), `${GUIDE}:${b.line}: ${file} imports '${specifier}'`)
    }
})

test('every example type-checks and compiles in a package of its own', () => {
  const built = pkg.tsc()
  // tsc names the package's files; each error is put back at the guide's line.
  const errors = built.output
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const m = /^(.+?)\((\d+),(\d+)\): (.*)$/.exec(line)
      const b = m && origin.get(m[1]!)
      return b ? `${GUIDE}:${b.line + Number(m[2])}:${m[3]}: ${m[4]} (${m[1]})` : line
    })
  assert.ok(built.ok && errors.length === 0, `\n${errors.join('\n')}`)
})

test("the guide's tests of its plugins pass", async () => {
  const tests = [...origin.keys()].filter((f) => f.endsWith('.test.ts'))
  assert.ok(tests.length > 0, 'the guide shows a test')
  for (const file of tests) {
    const run = await pkg.run(path.join('dist', file.replace(/\.ts$/, '.js')))
    assert.is(run.code, 0, `${file} (${GUIDE}:${origin.get(file)!.line}):\n${run.stdout}${run.stderr}`)
    assert.match(run.stdout, /Passed:\s+[1-9]/)
  }
})

test.run()
