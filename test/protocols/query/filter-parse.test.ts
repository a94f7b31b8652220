/**
 * The filter language as text: what it accepts (as trees), what it refuses (position and
 * construct), its bounds, and that the committed parser is the one the grammar generates.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import peggy from 'peggy'
import { repoRoot } from '../../../kernel/contract/paths.js'
import { FILTER_LIMITS, parseFilter } from '../../../protocols/query/filter-parse.js'
import { FilterError } from '../../../protocols/query/filter-error.js'
import type { FilterNode } from '../../../protocols/query/filter-ast.js'

const test = suite('protocols/query: filter expressions, parsed')

const pn = (at: number) => ({ kind: 'fixed', name: 'page_number', at }) as const
const meta = (key: string, at: number) => ({ kind: 'metadata', key, at }) as const

/** Text and the tree it means (positions are 1-based characters). */
const ACCEPTED: readonly [string, FilterNode][] = [
  ['page_number >= 2', { type: 'compare', left: pn(1), op: '>=', value: 2, at: 1 }],
  ['2 > page_number', { type: 'compare', left: pn(5), op: '<', value: 2, at: 5 }],
  [
    '1 < page_number <= 5',
    {
      type: 'and',
      items: [
        { type: 'compare', left: pn(5), op: '>', value: 1, at: 5 },
        { type: 'compare', left: pn(5), op: '<=', value: 5, at: 5 },
      ],
    },
  ],
  [
    "source_name == 'a\\'b\\u00e9\\x41'",
    { type: 'compare', left: { kind: 'fixed', name: 'source_name', at: 1 }, op: '==', value: "a'béA", at: 1 },
  ],
  ['lang NOT IN ["en", "fr",]', { type: 'in', left: meta('lang', 1), values: ['en', 'fr'], negated: true, at: 1 }],
  [
    'metadata["year"] != -0x10',
    {
      type: 'compare',
      left: { kind: 'metadata', key: 'year', at: 1, quoted: true } as never,
      op: '!=',
      value: -16,
      at: 1,
    },
  ],
  [
    '!(url like "%a_") || draft == TRUE',
    {
      type: 'or',
      items: [
        { type: 'not', item: { type: 'like', field: { kind: 'fixed', name: 'url', at: 3 }, pattern: '%a_', at: 3 } },
        { type: 'compare', left: meta('draft', 22), op: '==', value: true, at: 22 },
      ],
    },
  ],
  [
    'url is not null and tags IS NULL',
    {
      type: 'and',
      items: [
        { type: 'null', field: { kind: 'fixed', name: 'url', at: 1 }, negated: true, at: 1 },
        { type: 'null', field: { kind: 'fixed', name: 'tags', at: 21 }, negated: false, at: 21 },
      ],
    },
  ],
  [
    'array_contains_all(tags, [])',
    { type: 'contains', mode: 'all', field: { kind: 'fixed', name: 'tags', at: 20 }, values: [], at: 1 },
  ],
  [
    'JSON_CONTAINS(authors, "ann")',
    { type: 'contains', mode: 'one', field: meta('authors', 15), values: ['ann'], at: 1 },
  ],
  [
    'array_length(tags) > 1.5e0',
    {
      type: 'compare',
      left: { kind: 'array_length', of: { kind: 'fixed', name: 'tags', at: 14 }, at: 1 },
      op: '>',
      value: 1.5,
      at: 1,
    },
  ],
  [
    'not not x == false',
    {
      type: 'not',
      item: { type: 'not', item: { type: 'compare', left: meta('x', 9), op: '==', value: false, at: 9 } },
    },
  ],
]

for (const [text, tree] of ACCEPTED) {
  test(`accepts ${text}`, () => {
    assert.equal(parseFilter(text), tree)
  })
}

function refusal(text: string): { position: number; detail: string } {
  try {
    parseFilter(text)
  } catch (e) {
    if (e instanceof FilterError) return { position: e.position, detail: e.detail }
    throw e
  }
  throw new Error(`accepted: ${text}`)
}

/** Text, the 1-based position of the problem, and words the message must hold. */
const REFUSED: readonly [string, number, string][] = [
  ['page_number + 1 > 2', 13, 'arithmetic is not supported'],
  ['page_number ** 2 > 4', 13, 'arithmetic'],
  ['page_number % 2 == 0', 13, 'arithmetic'],
  ['source_name =~ "a.*"', 13, 'regular expression'],
  ['source_name !~ "a"', 13, 'regular expression'],
  ['page_number & 1 == 1', 13, 'bitwise'],
  ['page_number << 1 > 2', 13, 'bitwise'],
  ['text_match(content, "sqlite")', 1, 'text_match is not supported'],
  ['PHRASE_MATCH(content, "a b")', 1, 'PHRASE_MATCH is not supported'],
  ['lower(source_name) == "a"', 1, 'unknown function lower()'],
  ['page_number > 1 and sleep(5)', 21, 'unknown function sleep()'],
  ['page_number > year', 1, 'field-to-field comparison'],
  ['$meta["a"] == 1', 1, '$meta'],
  ['year > {year}', 8, 'template placeholder'],
  ['history[10] == 1', 1, 'history[...] is not supported'],
  ['exists year', 1, 'exists'],
  ['1 < 2', 1, 'needs a field'],
  ['source_name == 1', 1, 'source_name is text'],
  ['page_number == "3"', 1, 'page_number is a number'],
  ['page_number > true', 1, 'a boolean cannot be ordered'],
  ['page_number == true', 1, 'page_number is a number'],
  ['draft < true', 1, 'a boolean cannot be ordered'],
  ['tags == "x"', 1, 'tags is a list'],
  ['page_number like "1%"', 1, 'like applies to text'],
  ['array_contains(url, "x")', 16, 'takes tags or a metadata key'],
  ['array_contains(tags, ["x"])', 1, 'takes a field and one literal'],
  ['array_contains_any(tags, "x")', 1, 'a list of literals'],
  ['metadata == 1', 1, 'metadata is the JSON field'],
  ['metadata["a b"] == 1', 1, 'is not a name'],
  ['year in [[1]]', 9, 'nested lists'],
  ['source_name == "abc', 16, 'unterminated string'],
  ['source_name == "a\\qb"', 18, 'unknown escape'],
  ['source_name == "a\\u0000"', 1, 'NUL'],
  ['source_name == "\\ud800"', 1, 'lone surrogate'],
  ['page_number > 9007199254740993', 15, 'integer out of range'],
  ['page_number > 1 and', 20, 'ends too early'],
  ['(page_number > 1', 17, 'ends too early'],
  ['page_number > 1 )', 17, 'unexpected ")"'],
  ['', 1, 'empty'],
]

for (const [text, position, words] of REFUSED) {
  test(`refuses ${JSON.stringify(text)} at ${position}: ${words}`, () => {
    const r = refusal(text)
    assert.ok(r.detail.includes(words), `${r.detail} should say ${words}`)
    assert.is(r.position, position, r.detail)
  })
}

test('the message names the position too, for the 400 the API answers', () => {
  try {
    parseFilter('page_number + 1 > 2')
    assert.unreachable()
  } catch (e) {
    assert.instance(e, FilterError)
    assert.is((e as FilterError).message, 'filter expression, at character 13: arithmetic is not supported')
  }
})

test('bounds: length, nesting, list size, string length, key length', () => {
  assert.ok(refusal(`year == "${'a'.repeat(FILTER_LIMITS.length)}"`).detail.includes('longer than 4096'))
  const deep = `${'('.repeat(33)}year == 1${')'.repeat(33)}`
  assert.equal(refusal(deep), { position: 33, detail: 'nesting deeper than 32' })
  assert.ok(parseFilter(`${'('.repeat(31)}year == 1${')'.repeat(31)}`))
  assert.ok(refusal(`${'not '.repeat(40)}year == 1`).detail.includes('nesting deeper than 32'))
  assert.ok(refusal(`${'!'.repeat(4000)}year == 1`).detail.match(/nest/))
  const list = (n: number) => `year in [${Array.from({ length: n }, (_, i) => i).join(',')}]`
  assert.ok(parseFilter(list(1000)))
  assert.ok(refusal(list(1001)).detail.includes('more than 1000'))
  assert.ok(refusal(`year == "${'a'.repeat(1025)}"`).detail.includes('longer than 1024'))
  assert.ok(refusal(`${'k'.repeat(65)} == 1`).detail.includes('longer than 64'))
})

test('the committed parser is the one the grammar generates (npm run grammar)', () => {
  const grammar = fs.readFileSync(path.join(repoRoot, 'protocols', 'query', 'filter-grammar.peggy'), 'utf8')
  const committed = fs.readFileSync(path.join(repoRoot, 'protocols', 'query', 'filter-grammar.ts'), 'utf8')
  assert.ok(
    peggy.generate(grammar, { output: 'source', format: 'es' }) === committed,
    'run npm run grammar and commit filter-grammar.ts',
  )
})

test.run()
