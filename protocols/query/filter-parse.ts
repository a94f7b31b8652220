/**
 * `search_params.expr` from text to a checked tree: the generated parser (filter-grammar.peggy)
 * reads the syntax; this file bounds the input, names what the parser stopped at, and checks
 * what syntax cannot (a field's type against its literal, keys, list and string sizes).
 */
import { parse as generatedParse } from './filter-grammar.js'
import type { CompareOp, FieldRef, FilterNode, Operand, Scalar } from './filter-ast.js'
import { FilterError } from './filter-error.js'

export const FILTER_LIMITS = {
  /** Characters of the whole expression. */
  length: 4096,
  /** Nesting of parentheses, lists and `not`/`and`/`or` in the tree. */
  depth: 32,
  /** Values in one `in [...]` or `*_contains_*(f, [...])` list. */
  listSize: 1000,
  /** Characters of one string literal. */
  stringLength: 1024,
  /** Characters of a metadata key. */
  keyLength: 64,
} as const

/** Metadata keys are identifiers, also inside `metadata["..."]`, so a key is never more than a name. */
const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/

interface PeggyError {
  readonly message: string
  readonly location?: { readonly start: { readonly offset: number } }
  /** null when an action of the grammar raised the error (it names the construct itself). */
  readonly expected?: unknown
}

export function parseFilter(text: string): FilterNode {
  if (text.length > FILTER_LIMITS.length)
    throw new FilterError(FILTER_LIMITS.length + 1, `the expression is longer than ${FILTER_LIMITS.length} characters`)
  if (text.trim() === '') throw new FilterError(1, 'the expression is empty')
  checkNesting(text)
  let tree: FilterNode
  try {
    tree = generatedParse(text, {}) as FilterNode
  } catch (e) {
    if (e instanceof RangeError) throw new FilterError(1, 'the expression is nested too deeply')
    const err = e as PeggyError
    let offset = err.location?.start.offset ?? 0
    // `a << 1` stops after the first `<` (read as "less than"): report the operator whole.
    if (offset > 0 && /^(<<|>>)/.test(text.slice(offset - 1))) offset--
    // An error() from an action already names the construct; a plain syntax error gets ours.
    const named = err.expected === null
    throw new FilterError(offset + 1, named ? err.message : describeStop(text, offset))
  }
  check(tree, 1)
  return tree
}

/** Parentheses and brackets deeper than the bound are refused before the parser recurses into them. */
function checkNesting(text: string): void {
  let depth = 0
  let quote: string | undefined
  let opened = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quote) {
      if (c === '\\') i++
      else if (c === quote) quote = undefined
    } else if (c === '"' || c === "'") {
      quote = c
      opened = i
    } else if (c === '(' || c === '[') {
      if (++depth > FILTER_LIMITS.depth) throw new FilterError(i + 1, `nesting deeper than ${FILTER_LIMITS.depth}`)
    } else if (c === ')' || c === ']') depth--
  }
  if (quote) throw new FilterError(opened + 1, 'unterminated string')
}

const STOPS: readonly [RegExp, string][] = [
  [/^(=~|!~)/, 'regular expression matching (=~, !~) is not supported'],
  [/^(\*\*|[+\-*/%])/, 'arithmetic is not supported'],
  [/^(<<|>>|&(?!&)|\|(?!\|)|\^|~)/, 'a bitwise operator is not supported'],
  [/^\$/, '$meta (the dynamic field) is not supported'],
  [/^\{/, 'a template placeholder {...} is not supported: put the value in the expression'],
  [/^["']/, 'unterminated string'],
]

/** What the parser stopped at, named as the construct when it is one Milvus has and we refuse. */
function describeStop(text: string, offset: number): string {
  const rest = text.slice(offset)
  if (rest.trim() === '') return 'the expression ends too early'
  for (const [re, what] of STOPS) if (re.test(rest)) return what
  const call = /^([A-Za-z_][A-Za-z0-9_]*)\s*\(/.exec(rest)
  if (call) return `unknown function ${call[1]}()`
  const token = /^([A-Za-z_][A-Za-z0-9_]*|\S)/.exec(rest)?.[1] ?? rest[0]!
  return `unexpected ${JSON.stringify(token)}`
}

type Kind = 'text' | 'number' | 'list' | 'json'

function kindOf(field: FieldRef): Kind {
  if (field.kind === 'metadata') return 'json'
  return field.name === 'page_number' ? 'number' : field.name === 'tags' ? 'list' : 'text'
}

function nameOf(o: Operand): string {
  return o.kind === 'array_length'
    ? `array_length(${nameOf(o.of)})`
    : o.kind === 'fixed'
      ? o.name
      : `metadata["${o.key}"]`
}

function checkField(f: FieldRef): void {
  if (f.kind !== 'metadata') return
  if (f.key.length > FILTER_LIMITS.keyLength)
    throw new FilterError(f.at, `a metadata key is longer than ${FILTER_LIMITS.keyLength} characters`)
  if (!KEY.test(f.key))
    throw new FilterError(
      f.at,
      `metadata key ${JSON.stringify(f.key)} is not a name (letters, digits and _, not starting with a digit)`,
    )
}

function checkScalar(v: Scalar, at: number): void {
  if (typeof v !== 'string') return
  if (v.length > FILTER_LIMITS.stringLength)
    throw new FilterError(at, `a string is longer than ${FILTER_LIMITS.stringLength} characters`)
  // Neither store can hold these as text (PostgreSQL refuses NUL; a lone surrogate is not UTF-8).
  if (v.includes('\u0000')) throw new FilterError(at, 'a string may not contain a NUL character')
  if (LONE_SURROGATE.test(v)) throw new FilterError(at, 'a string may not contain a lone surrogate (\\uD800-\\uDFFF)')
}

function checkList(values: readonly Scalar[], at: number): void {
  if (values.length > FILTER_LIMITS.listSize)
    throw new FilterError(at, `a list has more than ${FILTER_LIMITS.listSize} values`)
  for (const v of values) checkScalar(v, at)
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** A literal fits an operand: text fields take strings, numbers numbers, metadata anything scalar. */
function checkOperand(left: Operand, value: Scalar, op: CompareOp | 'in', at: number): void {
  checkScalar(value, at)
  const kind: Kind = left.kind === 'array_length' ? 'number' : kindOf(left)
  if (left.kind === 'array_length') checkArrayField(left.of, 'array_length')
  else checkField(left)
  if (kind === 'list')
    throw new FilterError(at, 'tags is a list: use array_contains(tags, ...), array_contains_any or array_contains_all')
  if (typeof value === 'boolean' && op !== '==' && op !== '!=' && op !== 'in')
    throw new FilterError(at, `a boolean cannot be ordered with ${op}`)
  if (kind === 'text' && typeof value !== 'string')
    throw new FilterError(at, `${nameOf(left)} is text: compare it with a string`)
  if (kind === 'number' && typeof value !== 'number')
    throw new FilterError(at, `${nameOf(left)} is a number: compare it with a number`)
}

function checkArrayField(f: FieldRef, fn: string): void {
  checkField(f)
  const kind = kindOf(f)
  if (kind !== 'list' && kind !== 'json')
    throw new FilterError(f.at, `${fn} takes tags or a metadata key, not ${nameOf(f)}`)
}

/**
 * Checks a tree that did not come from text (the `tags` and `source_names` filters build theirs):
 * the same bounds and types as a parsed expression, errors at position 1.
 */
export function checkFilter(node: FilterNode): FilterNode {
  check(node, 1)
  return node
}

function check(node: FilterNode, depth: number): void {
  if (depth > FILTER_LIMITS.depth)
    throw new FilterError('at' in node ? node.at : 1, `nesting deeper than ${FILTER_LIMITS.depth}`)
  switch (node.type) {
    case 'and':
    case 'or':
      for (const item of node.items) check(item, depth + 1)
      return
    case 'not':
      return check(node.item, depth + 1)
    case 'compare':
      return checkOperand(node.left, node.value, node.op, node.at)
    case 'in':
      checkList(node.values, node.at)
      if (node.values.length === 0) checkField(node.left.kind === 'array_length' ? node.left.of : node.left)
      for (const v of node.values) checkOperand(node.left, v, 'in', node.at)
      return
    case 'like': {
      checkField(node.field)
      checkScalar(node.pattern, node.at)
      const kind = kindOf(node.field)
      if (kind !== 'text' && kind !== 'json')
        throw new FilterError(
          node.at,
          `like applies to text, and ${nameOf(node.field)} is ${kind === 'list' ? 'a list' : 'a number'}`,
        )
      return
    }
    case 'null':
      return checkField(node.field)
    case 'contains':
      checkArrayField(node.field, 'array_contains')
      return checkList(node.values, node.at)
  }
}
