/**
 * A filter tree (protocols/query/filter-ast.ts) compiled for a store: SQLite or PostgreSQL SQL
 * over the store's FilterColumns, with every literal, metadata key and pattern a bound
 * parameter. The SQL text is made only of the columns' own expressions and the fixed text here.
 *
 * Every leaf is true or false, never NULL (a missing field, a JSON null or a value of another
 * type than the literal makes it false), so `not` is the plain complement in both engines and
 * three-valued logic cannot make them disagree. Test: test/kernel/knowledge/filter-sql.test.ts
 * runs every accepted expression against both engines and compares the rows.
 */
import type { CompareOp, FieldRef, FilterNode, Operand, Scalar } from '../../../protocols/query/filter-ast.js'
import { checkFilter } from '../../../protocols/query/filter-parse.js'
import type { CompiledFilter, FilterColumns, SqlFragment } from './model.js'

const SQL_OP: Readonly<Record<CompareOp, string>> = {
  '==': '=',
  '!=': '<>',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
}
const ORDERING = (op: CompareOp) => op !== '==' && op !== '!='

/** Placeholders in text order, so SQLite's `?` and PostgreSQL's `$n` number them the same way. */
class Params {
  readonly values: unknown[] = []
  constructor(
    private readonly pg: boolean,
    private readonly first: number,
  ) {}
  /** `?`, or `$n::type` (PostgreSQL cannot infer the type of a parameter under `->` or `to_jsonb`). */
  add(value: unknown, pgType: string): string {
    // better-sqlite3 binds no booleans; SQLite's JSON functions give 1 and 0 for true and false.
    this.values.push(!this.pg && typeof value === 'boolean' ? Number(value) : value)
    return this.pg ? `$${this.first + this.values.length - 1}::${pgType}` : '?'
  }
}

const never = (x: never): never => {
  throw new Error(`unhandled filter node ${JSON.stringify(x)}`)
}

/** `%` and `_` of Milvus's like become GLOB's `*` and `?`; GLOB's own specials are bracketed. */
export function likeToGlob(pattern: string): string {
  return pattern.replace(/[%_*?[]/g, (c) => (c === '%' ? '*' : c === '_' ? '?' : `[${c}]`))
}

const wrap = (sql: string) => `COALESCE(${sql}, FALSE)`

abstract class Dialect {
  constructor(
    protected readonly c: FilterColumns,
    protected readonly p: Params,
  ) {}

  node(n: FilterNode): string {
    switch (n.type) {
      case 'and':
      case 'or':
        if (n.items.length === 0) return n.type === 'and' ? 'TRUE' : 'FALSE'
        return `(${n.items.map((i) => this.node(i)).join(n.type === 'and' ? ' AND ' : ' OR ')})`
      case 'not':
        return `NOT (${this.node(n.item)})`
      case 'compare':
        return this.compare(n.left, n.op, n.value)
      case 'in':
        return this.in(n.left, n.values, n.negated)
      case 'like':
        return this.like(n.field, n.pattern)
      case 'null':
        return this.isNull(n.field, n.negated)
      case 'contains':
        return this.contains(n.field, n.mode, n.values)
      default:
        return never(n)
    }
  }

  protected column(name: 'source_name' | 'url' | 'page_number'): string {
    return name === 'source_name' ? this.c.sourceName : name === 'url' ? this.c.url : this.c.pageNumber
  }

  /** Metadata keys are names (filter-parse.ts); the path is still a parameter, never text. */
  protected path(key: string): string {
    return `$.${key}`
  }

  protected in(left: Operand, values: readonly Scalar[], negated: boolean): string {
    if (left.kind === 'fixed' && left.name !== 'tags') return this.inColumn(left.name, values, negated)
    // Metadata and array lengths: the typed comparisons, any of (in) or none of (not in).
    if (values.length === 0) return negated ? 'TRUE' : 'FALSE'
    const parts = values.map((v) => this.compare(left, negated ? '!=' : '==', v))
    return parts.length === 1 ? parts[0]! : `(${parts.join(negated ? ' AND ' : ' OR ')})`
  }

  protected compare(left: Operand, op: CompareOp, value: Scalar): string {
    if (left.kind === 'array_length') return this.arrayLength(left.of, op, value as number)
    if (left.kind === 'metadata') return this.metadataCompare(left.key, op, value)
    if (left.name === 'tags') throw new Error('tags cannot be compared (refused by the parser)')
    return this.columnCompare(left.name, op, value)
  }

  abstract columnCompare(name: 'source_name' | 'url' | 'page_number', op: CompareOp, value: Scalar): string
  abstract inColumn(name: 'source_name' | 'url' | 'page_number', values: readonly Scalar[], negated: boolean): string
  abstract metadataCompare(key: string, op: CompareOp, value: Scalar): string
  abstract arrayLength(field: FieldRef, op: CompareOp, value: number): string
  abstract like(field: FieldRef, pattern: string): string
  abstract isNull(field: FieldRef, negated: boolean): string
  abstract contains(field: FieldRef, mode: 'one' | 'all' | 'any', values: readonly Scalar[]): string
}

/** SQLite: json_type / json_extract / json_each over JSON text; GLOB for like (LIKE ignores ASCII case). */
class Sqlite extends Dialect {
  /** `json_type(x)` or `json_type(metadata, ?)`: the fragment with its placeholder added now. */
  private json(fn: string, field: FieldRef): string {
    if (field.kind === 'fixed') return `${fn}(${this.c.tags})`
    return `${fn}(${this.c.metadata}, ${this.p.add(this.path(field.key), 'text')})`
  }

  columnCompare(name: 'source_name' | 'url' | 'page_number', op: CompareOp, value: Scalar): string {
    const sql = `${this.column(name)} ${SQL_OP[op]} ${this.p.add(value, '')}`
    return name === 'source_name' ? sql : wrap(sql)
  }

  inColumn(name: 'source_name' | 'url' | 'page_number', values: readonly Scalar[], negated: boolean): string {
    const sql = `${this.column(name)} ${negated ? 'NOT IN' : 'IN'} (SELECT value FROM json_each(${this.p.add(JSON.stringify(values), '')}))`
    return name === 'source_name' ? sql : wrap(sql)
  }

  metadataCompare(key: string, op: CompareOp, value: Scalar): string {
    const types =
      typeof value === 'string'
        ? `= 'text'`
        : typeof value === 'number'
          ? `IN ('integer', 'real')`
          : `IN ('true', 'false')`
    const guard = `json_type(${this.c.metadata}, ${this.p.add(this.path(key), '')}) ${types}`
    return wrap(
      `${guard} AND json_extract(${this.c.metadata}, ${this.p.add(this.path(key), '')}) ${SQL_OP[op]} ${this.p.add(value, '')}`,
    )
  }

  arrayLength(field: FieldRef, op: CompareOp, value: number): string {
    const guard = `${this.json('json_type', field)} = 'array'`
    return wrap(`${guard} AND ${this.json('json_array_length', field)} ${SQL_OP[op]} ${this.p.add(value, '')}`)
  }

  like(field: FieldRef, pattern: string): string {
    if (field.kind === 'fixed')
      return wrap(`${this.column(field.name as 'source_name' | 'url')} GLOB ${this.p.add(likeToGlob(pattern), '')}`)
    const guard = `json_type(${this.c.metadata}, ${this.p.add(this.path(field.key), '')}) = 'text'`
    return wrap(
      `${guard} AND json_extract(${this.c.metadata}, ${this.p.add(this.path(field.key), '')}) GLOB ${this.p.add(likeToGlob(pattern), '')}`,
    )
  }

  isNull(field: FieldRef, negated: boolean): string {
    if (field.kind === 'fixed' && field.name !== 'tags')
      return `${this.column(field.name)} IS ${negated ? 'NOT ' : ''}NULL`
    return `COALESCE(${this.json('json_type', field)}, 'null') ${negated ? '<>' : '='} 'null'`
  }

  contains(field: FieldRef, mode: 'one' | 'all' | 'any', values: readonly Scalar[]): string {
    // Equal as JSON values: same scalar, and a boolean never equals the number 1 or 0
    // (json_each gives both as integers), as jsonb containment has it in PostgreSQL.
    const same = `h.value = w.value AND h.type NOT IN ('array', 'object') AND (h.type IN ('true', 'false')) = (w.type IN ('true', 'false'))`
    const guard = `${this.json('json_type', field)} = 'array'`
    const wanted = this.p.add(JSON.stringify(values), '')
    if (mode === 'any')
      return wrap(
        `${guard} AND EXISTS (SELECT 1 FROM json_each(${wanted}) AS w, ${this.json('json_each', field)} AS h WHERE ${same})`,
      )
    return wrap(
      `${guard} AND NOT EXISTS (SELECT 1 FROM json_each(${wanted}) AS w WHERE NOT EXISTS (SELECT 1 FROM ${this.json('json_each', field)} AS h WHERE ${same}))`,
    )
  }
}

/** PostgreSQL: jsonb operators, `LIKE ... ESCAPE ''` (no escape, as in Milvus), C collation for ordering. */
class Postgres extends Dialect {
  /** The jsonb of tags, or of one metadata key. */
  private jsonb(field: FieldRef): string {
    if (field.kind === 'fixed') return this.c.tags
    return `(${this.c.metadata} -> ${this.p.add(field.key, 'text')})`
  }

  /**
   * Text is ordered by code point, as SQLite's BINARY does, whatever the database's collation.
   */
  private text(sql: string, op: CompareOp): string {
    return ORDERING(op) ? `${sql} COLLATE "C"` : sql
  }

  columnCompare(name: 'source_name' | 'url' | 'page_number', op: CompareOp, value: Scalar): string {
    const number = name === 'page_number'
    const left = number ? this.column(name) : this.text(this.column(name), op)
    const sql = `${left} ${SQL_OP[op]} ${this.p.add(value, number ? 'numeric' : 'text')}`
    return name === 'source_name' ? sql : wrap(sql)
  }

  inColumn(name: 'source_name' | 'url' | 'page_number', values: readonly Scalar[], negated: boolean): string {
    const list = this.p.add(values, name === 'page_number' ? 'numeric[]' : 'text[]')
    const sql = negated ? `${this.column(name)} <> ALL (${list})` : `${this.column(name)} = ANY (${list})`
    return name === 'source_name' ? sql : wrap(sql)
  }

  metadataCompare(key: string, op: CompareOp, value: Scalar): string {
    const guard = `jsonb_typeof(${this.c.metadata} -> ${this.p.add(key, 'text')}) = '${typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : 'boolean'}'`
    if (typeof value === 'string') {
      return wrap(
        `${guard} AND ${this.text(`(${this.c.metadata} ->> ${this.p.add(key, 'text')})`, op)} ${SQL_OP[op]} ${this.p.add(value, 'text')}`,
      )
    }
    // jsonb against jsonb: numbers compare as numbers, and no cast can fail on another type.
    const json = `(${this.c.metadata} -> ${this.p.add(key, 'text')})`
    return wrap(
      `${guard} AND ${json} ${SQL_OP[op]} to_jsonb(${this.p.add(value, typeof value === 'number' ? 'numeric' : 'boolean')})`,
    )
  }

  arrayLength(field: FieldRef, op: CompareOp, value: number): string {
    // CASE, not AND: PostgreSQL may evaluate jsonb_array_length first, and it raises on a scalar.
    const len = `CASE WHEN jsonb_typeof(${this.jsonb(field)}) = 'array' THEN jsonb_array_length(${this.jsonb(field)}) END`
    return wrap(`${len} ${SQL_OP[op]} ${this.p.add(value, 'numeric')}`)
  }

  like(field: FieldRef, pattern: string): string {
    if (field.kind === 'fixed')
      return wrap(`${this.column(field.name as 'source_name' | 'url')} LIKE ${this.p.add(pattern, 'text')} ESCAPE ''`)
    const guard = `jsonb_typeof(${this.c.metadata} -> ${this.p.add(field.key, 'text')}) = 'string'`
    return wrap(
      `${guard} AND (${this.c.metadata} ->> ${this.p.add(field.key, 'text')}) LIKE ${this.p.add(pattern, 'text')} ESCAPE ''`,
    )
  }

  isNull(field: FieldRef, negated: boolean): string {
    if (field.kind === 'fixed' && field.name !== 'tags')
      return `${this.column(field.name)} IS ${negated ? 'NOT ' : ''}NULL`
    return `COALESCE(jsonb_typeof(${this.jsonb(field)}), 'null') ${negated ? '<>' : '='} 'null'`
  }

  contains(field: FieldRef, mode: 'one' | 'all' | 'any', values: readonly Scalar[]): string {
    const guard = `jsonb_typeof(${this.jsonb(field)}) = 'array'`
    if (mode === 'any') {
      const wanted = this.p.add(JSON.stringify(values), 'jsonb')
      return wrap(
        `${guard} AND EXISTS (SELECT 1 FROM jsonb_array_elements(${wanted}) AS w(v) WHERE ${this.jsonb(field)} @> jsonb_build_array(w.v))`,
      )
    }
    return wrap(`${guard} AND ${this.jsonb(field)} @> ${this.p.add(JSON.stringify(values), 'jsonb')}`)
  }
}

/** The tree as a CompiledFilter: the same tree gives each store its own SQL. */
export function compileFilter(tree: FilterNode): CompiledFilter {
  return (columns: FilterColumns, firstParam: number): SqlFragment => {
    const params = new Params(columns.dialect === 'postgres', firstParam)
    const dialect = columns.dialect === 'postgres' ? new Postgres(columns, params) : new Sqlite(columns, params)
    const sql = dialect.node(tree)
    return { sql, params: params.values }
  }
}

/** No condition: what an empty `tags` or `source_names` means (the same as leaving it out). */
export const noFilter: CompiledFilter = () => ({ sql: 'TRUE', params: [] })

/** `search_params.tags`: chunks of documents with any of these tags. */
export function tagsFilter(tags: readonly string[]): CompiledFilter {
  if (tags.length === 0) return noFilter
  return compileFilter(
    checkFilter({ type: 'contains', mode: 'any', field: { kind: 'fixed', name: 'tags', at: 1 }, values: tags, at: 1 }),
  )
}

/** `search_params.source_names`: chunks of the documents with these names. */
export function sourceNamesFilter(names: readonly string[]): CompiledFilter {
  if (names.length === 0) return noFilter
  return compileFilter(
    checkFilter({
      type: 'in',
      left: { kind: 'fixed', name: 'source_name', at: 1 },
      values: names,
      negated: false,
      at: 1,
    }),
  )
}

/** All of the filters: each one's parameters numbered after the ones before it. */
export function andFilters(...filters: readonly CompiledFilter[]): CompiledFilter {
  if (filters.length === 0) return noFilter
  if (filters.length === 1) return filters[0]!
  return (columns, firstParam) => {
    const sqls: string[] = []
    const params: unknown[] = []
    for (const f of filters) {
      const part = f(columns, firstParam + params.length)
      sqls.push(part.sql)
      params.push(...part.params)
    }
    return { sql: `(${sqls.join(' AND ')})`, params }
  }
}
