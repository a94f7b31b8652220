/**
 * The filter compiler, alone and against both engines: exact SQL and parameters for SQLite and
 * PostgreSQL, injection attempts that stay parameters, and every accepted expression executed
 * on an in-memory SQLite and on the real PostgreSQL, which must return the same rows (the rows
 * we expect, written by hand), so the dialects cannot drift apart.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import Database from 'better-sqlite3'
import pg from 'pg'
import { parseFilter } from '../../../../protocols/query/filter-parse.js'
import { FilterError } from '../../../../protocols/query/filter-error.js'
import {
  andFilters,
  compileFilter,
  likeToGlob,
  noFilter,
  sourceNamesFilter,
  tagsFilter,
} from '../../../../domains/query/knowledge/filter-sql.js'
import type { CompiledFilter, FilterColumns } from '../../../../domains/query/knowledge/model.js'
import { POSTGRES_URL, uniqueName } from '../../../support/services.js'
import { suiteNeeding } from '../../../support/needs-server.js'

const SQLITE: FilterColumns = {
  dialect: 'sqlite',
  sourceName: 'c.source_name',
  url: 'c.url',
  pageNumber: 'c.page_number',
  tags: 'c.tags',
  metadata: 'c.metadata',
}
const POSTGRES: FilterColumns = { ...SQLITE, dialect: 'postgres' }

type Expected = readonly [sql: string, params: readonly unknown[]]

/** Expression, then SQLite's SQL and parameters (from ?), then PostgreSQL's (from $3). */
const EXACT: readonly [string, Expected, Expected][] = [
  ['source_name == "a.md"', ['c.source_name = ?', ['a.md']], ['c.source_name = $3::text', ['a.md']]],
  ['source_name < "b"', ['c.source_name < ?', ['b']], ['c.source_name COLLATE "C" < $3::text', ['b']]],
  [
    'url != "https://x/a"',
    ['COALESCE(c.url <> ?, FALSE)', ['https://x/a']],
    ['COALESCE(c.url <> $3::text, FALSE)', ['https://x/a']],
  ],
  [
    '1 < page_number <= 5',
    ['(COALESCE(c.page_number > ?, FALSE) AND COALESCE(c.page_number <= ?, FALSE))', [1, 5]],
    ['(COALESCE(c.page_number > $3::numeric, FALSE) AND COALESCE(c.page_number <= $4::numeric, FALSE))', [1, 5]],
  ],
  [
    'page_number in [1, 2]',
    ['COALESCE(c.page_number IN (SELECT value FROM json_each(?)), FALSE)', ['[1,2]']],
    ['COALESCE(c.page_number = ANY ($3::numeric[]), FALSE)', [[1, 2]]],
  ],
  [
    'source_name not in ["a.md", "b.md"]',
    ['c.source_name NOT IN (SELECT value FROM json_each(?))', ['["a.md","b.md"]']],
    ['c.source_name <> ALL ($3::text[])', [['a.md', 'b.md']]],
  ],
  [
    'year >= 2021',
    [
      "COALESCE(json_type(c.metadata, ?) IN ('integer', 'real') AND json_extract(c.metadata, ?) >= ?, FALSE)",
      ['$.year', '$.year', 2021],
    ],
    [
      "COALESCE(jsonb_typeof(c.metadata -> $3::text) = 'number' AND (c.metadata -> $4::text) >= to_jsonb($5::numeric), FALSE)",
      ['year', 'year', 2021],
    ],
  ],
  [
    'lang == "en"',
    [
      "COALESCE(json_type(c.metadata, ?) = 'text' AND json_extract(c.metadata, ?) = ?, FALSE)",
      ['$.lang', '$.lang', 'en'],
    ],
    [
      "COALESCE(jsonb_typeof(c.metadata -> $3::text) = 'string' AND (c.metadata ->> $4::text) = $5::text, FALSE)",
      ['lang', 'lang', 'en'],
    ],
  ],
  [
    'draft == false',
    [
      "COALESCE(json_type(c.metadata, ?) IN ('true', 'false') AND json_extract(c.metadata, ?) = ?, FALSE)",
      ['$.draft', '$.draft', 0],
    ],
    [
      "COALESCE(jsonb_typeof(c.metadata -> $3::text) = 'boolean' AND (c.metadata -> $4::text) = to_jsonb($5::boolean), FALSE)",
      ['draft', 'draft', false],
    ],
  ],
  [
    'lang in ["en", 1]',
    [
      "(COALESCE(json_type(c.metadata, ?) = 'text' AND json_extract(c.metadata, ?) = ?, FALSE) OR COALESCE(json_type(c.metadata, ?) IN ('integer', 'real') AND json_extract(c.metadata, ?) = ?, FALSE))",
      ['$.lang', '$.lang', 'en', '$.lang', '$.lang', 1],
    ],
    [
      "(COALESCE(jsonb_typeof(c.metadata -> $3::text) = 'string' AND (c.metadata ->> $4::text) = $5::text, FALSE) OR COALESCE(jsonb_typeof(c.metadata -> $6::text) = 'number' AND (c.metadata -> $7::text) = to_jsonb($8::numeric), FALSE))",
      ['lang', 'lang', 'en', 'lang', 'lang', 1],
    ],
  ],
  [
    'url like "https://%/e*"',
    ['COALESCE(c.url GLOB ?, FALSE)', ['https://*/e[*]']],
    ["COALESCE(c.url LIKE $3::text ESCAPE '', FALSE)", ['https://%/e*']],
  ],
  [
    'metadata["lang"] like "E_"',
    [
      "COALESCE(json_type(c.metadata, ?) = 'text' AND json_extract(c.metadata, ?) GLOB ?, FALSE)",
      ['$.lang', '$.lang', 'E?'],
    ],
    [
      "COALESCE(jsonb_typeof(c.metadata -> $3::text) = 'string' AND (c.metadata ->> $4::text) LIKE $5::text ESCAPE '', FALSE)",
      ['lang', 'lang', 'E_'],
    ],
  ],
  ['url is null', ['c.url IS NULL', []], ['c.url IS NULL', []]],
  [
    'year is not null',
    ["COALESCE(json_type(c.metadata, ?), 'null') <> 'null'", ['$.year']],
    ["COALESCE(jsonb_typeof((c.metadata -> $3::text)), 'null') <> 'null'", ['year']],
  ],
  [
    'array_contains(tags, "x")',
    [
      "COALESCE(json_type(c.tags) = 'array' AND NOT EXISTS (SELECT 1 FROM json_each(?) AS w WHERE NOT EXISTS (SELECT 1 FROM json_each(c.tags) AS h WHERE h.value = w.value AND h.type NOT IN ('array', 'object') AND (h.type IN ('true', 'false')) = (w.type IN ('true', 'false')))), FALSE)",
      ['["x"]'],
    ],
    ["COALESCE(jsonb_typeof(c.tags) = 'array' AND c.tags @> $3::jsonb, FALSE)", ['["x"]']],
  ],
  [
    'array_contains_all(tags, ["x", "intro"])',
    [
      "COALESCE(json_type(c.tags) = 'array' AND NOT EXISTS (SELECT 1 FROM json_each(?) AS w WHERE NOT EXISTS (SELECT 1 FROM json_each(c.tags) AS h WHERE h.value = w.value AND h.type NOT IN ('array', 'object') AND (h.type IN ('true', 'false')) = (w.type IN ('true', 'false')))), FALSE)",
      ['["x","intro"]'],
    ],
    ["COALESCE(jsonb_typeof(c.tags) = 'array' AND c.tags @> $3::jsonb, FALSE)", ['["x","intro"]']],
  ],
  [
    'json_contains_any(authors, ["bob", 1])',
    [
      "COALESCE(json_type(c.metadata, ?) = 'array' AND EXISTS (SELECT 1 FROM json_each(?) AS w, json_each(c.metadata, ?) AS h WHERE h.value = w.value AND h.type NOT IN ('array', 'object') AND (h.type IN ('true', 'false')) = (w.type IN ('true', 'false'))), FALSE)",
      ['$.authors', '["bob",1]', '$.authors'],
    ],
    [
      "COALESCE(jsonb_typeof((c.metadata -> $3::text)) = 'array' AND EXISTS (SELECT 1 FROM jsonb_array_elements($4::jsonb) AS w(v) WHERE (c.metadata -> $5::text) @> jsonb_build_array(w.v)), FALSE)",
      ['authors', '["bob",1]', 'authors'],
    ],
  ],
  [
    'array_length(tags) >= 2',
    ["COALESCE(json_type(c.tags) = 'array' AND json_array_length(c.tags) >= ?, FALSE)", [2]],
    [
      "COALESCE(CASE WHEN jsonb_typeof(c.tags) = 'array' THEN jsonb_array_length(c.tags) END >= $3::numeric, FALSE)",
      [2],
    ],
  ],
  [
    'not (page_number > 2 or tags is null)',
    ["NOT ((COALESCE(c.page_number > ?, FALSE) OR COALESCE(json_type(c.tags), 'null') = 'null'))", [2]],
    ["NOT ((COALESCE(c.page_number > $3::numeric, FALSE) OR COALESCE(jsonb_typeof(c.tags), 'null') = 'null'))", [2]],
  ],
]

const exact = suite('kernel/knowledge: filter SQL, exact')

for (const [text, sqlite, postgres] of EXACT) {
  exact(`compiles ${text}`, () => {
    const f = compileFilter(parseFilter(text))
    const s = f(SQLITE, 1)
    const p = f(POSTGRES, 3)
    assert.equal([s.sql, s.params], sqlite)
    assert.equal([p.sql, p.params], postgres)
  })
}

exact('like becomes GLOB with GLOB’s own specials bracketed, and no escape character', () => {
  assert.is(likeToGlob('%a_b*c?d[e]f\\'), '*a?b[*]c[?]d[[]e]f\\')
})

exact('the tags and source_names filters, and the and of filters numbered in order', () => {
  const both = andFilters(tagsFilter(['x', 'y']), sourceNamesFilter(['a.md']))
  assert.equal(both(POSTGRES, 5), {
    sql: "(COALESCE(jsonb_typeof(c.tags) = 'array' AND EXISTS (SELECT 1 FROM jsonb_array_elements($5::jsonb) AS w(v) WHERE c.tags @> jsonb_build_array(w.v)), FALSE) AND c.source_name = ANY ($6::text[]))",
    params: ['["x","y"]', ['a.md']],
  })
  assert.is(both(SQLITE, 5).params.length, 2)
  assert.equal(tagsFilter([])(SQLITE, 1), { sql: 'TRUE', params: [] })
  assert.equal(sourceNamesFilter([])(POSTGRES, 1), { sql: 'TRUE', params: [] })
  assert.equal(andFilters()(POSTGRES, 1), { sql: 'TRUE', params: [] })
  assert.is(andFilters(noFilter), noFilter)
  assert.throws(
    () => tagsFilter(['a\u0000']),
    (e: unknown) => e instanceof FilterError,
  )
  assert.throws(
    () => sourceNamesFilter(Array.from({ length: 1001 }, (_, i) => `s${i}`)),
    (e: unknown) => e instanceof FilterError,
  )
})

exact.run()

// ---------------------------------------------------------------------------------------------
// Injection: whatever a literal holds, the SQL text is the text a harmless literal gives, and the
// payload is a parameter, whole.

const PAYLOADS = [
  "'; DROP TABLE chunks; --",
  '" OR 1=1 --',
  "x' UNION SELECT name, sql FROM sqlite_master --",
  "') OR ('1'='1",
  "\\'; SELECT pg_sleep(5); --",
  '/* comment */ 1; --',
  'a\\',
  '$1 ?1 ?',
  'κείμενο 😀 \u200b\u202e',
  'a\u0001\u007fb',
  '%_*?[',
]

/** A payload as a filter string literal: JSON's escapes are a subset of ours. */
const literal = (s: string) => JSON.stringify(s)

const SHAPES = [
  (l: string) => `source_name == ${l}`,
  (l: string) => `url like ${l}`,
  (l: string) => `title in [${l}, "x"]`,
  (l: string) => `metadata["title"] > ${l}`,
  (l: string) => `array_contains_any(tags, [${l}])`,
]

const injection = suite('kernel/knowledge: filter SQL, injection')

injection('a payload in a literal changes the parameters, never the SQL', () => {
  for (const shape of SHAPES) {
    for (const cols of [SQLITE, POSTGRES]) {
      const harmless = compileFilter(parseFilter(shape('"x"')))(cols, 1)
      for (const payload of PAYLOADS) {
        const f = compileFilter(parseFilter(shape(literal(payload))))(cols, 1)
        assert.is(f.sql, harmless.sql, `${shape(literal(payload))} (${cols.dialect})`)
        // Whole: as itself, as GLOB's translation (SQLite's like), or inside a JSON list parameter.
        const forms = [payload, likeToGlob(payload)]
        const inParams = f.params.some(
          (p) =>
            forms.includes(p as string) ||
            (Array.isArray(p) && p.includes(payload)) ||
            (typeof p === 'string' && p.startsWith('[') && (JSON.parse(p) as unknown[]).includes(payload)),
        )
        assert.ok(
          inParams,
          `payload ${JSON.stringify(payload)} is a parameter (${cols.dialect}: ${JSON.stringify(f.params)})`,
        )
        assert.not.ok(f.sql.includes(payload), 'and not SQL text')
      }
    }
  }
})

/** Whole expressions that try to reach SQL some other way: all refused before any SQL exists. */
const REFUSED = [
  'source_name == "a" or 1=1',
  'source_name == "a"; DROP TABLE chunks',
  'source_name == "a" -- comment',
  'source_name == "a" /* x */',
  'source_name == "a" union select 1',
  'load_extension("x")',
  'sqlite_version() == "3"',
  'pg_sleep(5)',
  'metadata["a\'; DROP TABLE chunks; --"] == 1',
  'metadata["a.b"] == 1',
  '"a" == "a"',
  'source_name == "\\x00"',
  'source_name == "a\u0000"',
  'source_name == url',
  'source_name == `x`',
  'source_name == "a" \\',
]

injection('expressions that reach for SQL are refused as filter errors', () => {
  for (const text of REFUSED) {
    assert.throws(
      () => parseFilter(text),
      (e: unknown) => e instanceof FilterError,
      text,
    )
  }
})

injection.run()

// ---------------------------------------------------------------------------------------------
// Both engines, the same rows.

interface Row {
  readonly id: number
  readonly source_name: string
  readonly url: string | null
  readonly page_number: number | null
  readonly tags: unknown
  readonly metadata: unknown
}

const ROWS: readonly Row[] = [
  {
    id: 1,
    source_name: 'a.md',
    url: 'https://x/a',
    page_number: 1,
    tags: ['intro', 'x'],
    metadata: { lang: 'en', year: 2020, draft: false, score: 4.5, authors: ['ann', 'bob'] },
  },
  {
    id: 2,
    source_name: 'b.md',
    url: null,
    page_number: 2,
    tags: ['x'],
    metadata: { lang: 'fr', year: 2021, draft: true },
  },
  {
    id: 3,
    source_name: 'c.pdf',
    url: 'https://x/c',
    page_number: 5,
    tags: [],
    metadata: { lang: 'EN', year: '2022', n: 1 },
  },
  {
    id: 4,
    source_name: 'd.pdf',
    url: null,
    page_number: null,
    tags: ['y', '100%'],
    metadata: { year: null, flag: 1, arr: [1, '1', true] },
  },
  { id: 5, source_name: 'e_1.md', url: 'https://x/e*', page_number: 7, tags: ['z'], metadata: {} },
  {
    id: 6,
    source_name: 'Ünï.md',
    url: 'https://x/ü',
    page_number: 3,
    tags: ['ü'],
    metadata: { lang: 'de', title: 'a\'b"c; --' },
  },
  {
    id: 7,
    source_name: 'f[1].txt',
    url: 'HTTPS://X/F',
    page_number: 10,
    tags: ['X'],
    metadata: { lang: 'en-GB', year: 2023.5, flag: true, arr: [[1], '[1]'] },
  },
  { id: 8, source_name: 'zz.md', url: null, page_number: 4, tags: null, metadata: null },
]

/** Accepted expressions and the rows they select, by id. */
const SELECTS: readonly [string, readonly number[]][] = [
  ['source_name == "a.md"', [1]],
  ['source_name < "c"', [1, 2]],
  ['source_name >= "e"', [5, 6, 7, 8]],
  ['url != "https://x/a"', [3, 5, 6, 7]],
  ['1 < page_number <= 5', [2, 3, 6, 8]],
  ['5 >= page_number > 2', [3, 6, 8]],
  ['page_number in [1, 10]', [1, 7]],
  ['page_number not in [1, 10]', [2, 3, 5, 6, 8]],
  ['page_number not in []', [1, 2, 3, 4, 5, 6, 7, 8]],
  ['source_name not in ["a.md", "b.md"]', [3, 4, 5, 6, 7, 8]],
  ['year >= 2021', [2, 7]],
  ['year == "2022"', [3]],
  ['lang == "en"', [1]],
  ['lang != "en"', [2, 3, 6, 7]],
  ['not (lang == "en")', [2, 3, 4, 5, 6, 7, 8]],
  ['lang < "en"', [3, 6]],
  ['lang > "en"', [2, 7]],
  ['draft == false', [1]],
  ['draft != false', [2]],
  ['flag == true', [7]],
  ['flag == 1', [4]],
  ['lang in ["en", "fr"]', [1, 2]],
  ['lang not in ["en", "fr"]', [3, 6, 7]],
  ['url like "https://x/%"', [1, 3, 5, 6]],
  ['url like "%e*"', [5]],
  ['source_name like "e_1%"', [5]],
  ['source_name like "%[1]%"', [7]],
  ['source_name like "_nï.md"', [6]],
  ['lang like "en%"', [1, 7]],
  ['metadata["lang"] like "E_"', [3]],
  ['url is null', [2, 4, 8]],
  ['url is not null', [1, 3, 5, 6, 7]],
  ['page_number is null', [4]],
  ['year is null', [4, 5, 6, 8]],
  ['year is not null', [1, 2, 3, 7]],
  ['tags is null', [8]],
  ['array_contains(tags, "x")', [1, 2]],
  ['array_contains(tags, "100%")', [4]],
  ['array_contains_all(tags, ["x", "intro"])', [1]],
  ['array_contains_any(tags, ["y", "z", "ü"])', [4, 5, 6]],
  ['array_contains_all(tags, [])', [1, 2, 3, 4, 5, 6, 7]],
  ['array_contains_any(tags, [])', []],
  ['json_contains(arr, 1)', [4]],
  ['json_contains(arr, true)', [4]],
  ['json_contains(arr, "1")', [4]],
  ['json_contains(arr, "[1]")', [7]],
  ['json_contains(lang, "en")', []],
  ['json_contains_any(authors, ["bob", 1])', [1]],
  ['json_contains_all(authors, ["bob", "ann", "bob"])', [1]],
  ['array_length(tags) >= 2', [1, 4]],
  ['array_length(tags) == 0', [3]],
  ['array_length(arr) in [3]', [4]],
  ['array_length(lang) == 2', []],
  ['not (page_number > 2 or tags is null)', [1, 2, 4]],
  ['score > 4 && score < 5', [1]],
  ['year > 2020.5 || n == 1', [2, 3, 7]],
  [`title == ${literal('a\'b"c; --')}`, [6]],
  ["title == 'a\\'b\"c; --'", [6]],
  ['!(year is null) and not draft == true', [1, 3, 7]],
]

// The same expressions executed: on an in-memory SQLite always, and on the real PostgreSQL in a
// suite of its own (skipped without the server, failed under CI), which must return the same rows.

let sqlite: Database.Database
let client: pg.Client | undefined
const schema = uniqueName('filter_sql')

function openSqlite(): void {
  sqlite = new Database(':memory:')
  sqlite.exec(
    'CREATE TABLE chunks (id INTEGER PRIMARY KEY, source_name TEXT NOT NULL, url TEXT, page_number INTEGER, tags TEXT, metadata TEXT)',
  )
  const insert = sqlite.prepare('INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?)')
  for (const r of ROWS)
    insert.run(
      r.id,
      r.source_name,
      r.url,
      r.page_number,
      r.tags === null ? null : JSON.stringify(r.tags),
      r.metadata === null ? null : JSON.stringify(r.metadata),
    )
}

function onSqlite(f: CompiledFilter): number[] {
  const { sql, params } = f(SQLITE, 1)
  assert.is((sql.match(/\?/g) ?? []).length, params.length, 'one ? per parameter')
  const rows = sqlite.prepare(`SELECT c.id FROM chunks AS c WHERE ${sql} ORDER BY c.id`).all(...params) as {
    id: number
  }[]
  return rows.map((r) => r.id)
}

async function onPostgres(f: CompiledFilter): Promise<number[]> {
  // The filter after a parameter of the query's own, as a store would place it.
  const { sql, params } = f(POSTGRES, 2)
  const numbers = [...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]))
  assert.equal(
    numbers,
    params.map((_, i) => i + 2),
    '$n in text order, from the first free number',
  )
  const result = await client!.query<{ id: number }>(
    `SELECT c.id FROM ${schema}.chunks AS c WHERE c.id > $1 AND ${sql} ORDER BY c.id`,
    [0, ...params],
  )
  return result.rows.map((r) => r.id)
}

const helperFilters = () => [
  ...EXACT.map(([text]) => compileFilter(parseFilter(text))),
  tagsFilter(['x', 'ü']),
  sourceNamesFilter(['a.md', 'Ünï.md']),
  andFilters(tagsFilter(['x']), sourceNamesFilter(['b.md']), compileFilter(parseFilter('page_number > 1'))),
]

const onSqliteEngine = suite('kernel/knowledge: filter SQL on SQLite')
onSqliteEngine.before(openSqlite)
onSqliteEngine.after(() => {
  sqlite?.close()
})

for (const [text, ids] of SELECTS) {
  onSqliteEngine(`${text} selects ${JSON.stringify(ids)} on SQLite`, () => {
    assert.equal(onSqlite(compileFilter(parseFilter(text))), ids, 'SQLite')
  })
}

onSqliteEngine('the exact-table expressions and the helpers run on SQLite', () => {
  for (const f of helperFilters()) onSqlite(f)
  assert.equal(onSqlite(tagsFilter(['x', 'ü'])), [1, 2, 6])
  assert.equal(onSqlite(andFilters(tagsFilter(['x']), sourceNamesFilter(['b.md']))), [2])
})

onSqliteEngine('injection payloads run as parameters and leave the table as it was, on SQLite', () => {
  for (const shape of SHAPES) {
    for (const payload of PAYLOADS) onSqlite(compileFilter(parseFilter(shape(literal(payload)))))
  }
  assert.equal(onSqlite(noFilter).length, ROWS.length)
})

onSqliteEngine.run()

const engines = suiteNeeding(['postgres'], 'kernel/knowledge: filter SQL on PostgreSQL, the same rows as SQLite')

engines.before(async () => {
  openSqlite()
  client = new pg.Client({ connectionString: POSTGRES_URL })
  await client.connect()
  await client.query(`CREATE SCHEMA ${schema}`)
  await client.query(
    `CREATE TABLE ${schema}.chunks (id integer PRIMARY KEY, source_name text NOT NULL, url text, page_number integer, tags jsonb, metadata jsonb)`,
  )
  for (const r of ROWS) {
    await client.query(`INSERT INTO ${schema}.chunks VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb)`, [
      r.id,
      r.source_name,
      r.url,
      r.page_number,
      r.tags === null ? null : JSON.stringify(r.tags),
      r.metadata === null ? null : JSON.stringify(r.metadata),
    ])
  }
})

engines.after(async () => {
  sqlite?.close()
  if (client) {
    await client.query(`DROP SCHEMA ${schema} CASCADE`)
    await client.end()
  }
})

for (const [text, ids] of SELECTS) {
  engines(`${text} selects ${JSON.stringify(ids)} on PostgreSQL`, async () => {
    assert.equal(await onPostgres(compileFilter(parseFilter(text))), ids, 'PostgreSQL')
  })
}

engines('the exact-table expressions and the helpers return the same rows on both engines', async () => {
  for (const f of helperFilters()) assert.equal(await onPostgres(f), onSqlite(f))
})

engines('injection payloads select the same rows on both engines and leave the table as it was', async () => {
  for (const shape of SHAPES) {
    for (const payload of PAYLOADS) {
      const f = compileFilter(parseFilter(shape(literal(payload))))
      assert.equal(await onPostgres(f), onSqlite(f), shape(literal(payload)))
    }
  }
  assert.equal((await onPostgres(noFilter)).length, ROWS.length)
})

engines.run()
