/**
 * The tree of a filter expression (`search_params.expr`), as filter-parse.ts returns it: small
 * and closed, so the compilers can be exhaustive. Positions (`at`) are 1-based characters of the
 * expression, kept for error messages.
 */

/** The chunk fields that every document has; anything else names a custom metadata key. */
export type FixedField = 'source_name' | 'url' | 'page_number' | 'tags'
export const FIXED_FIELDS: readonly FixedField[] = ['source_name', 'url', 'page_number', 'tags']

export type FieldRef =
  | { readonly kind: 'fixed'; readonly name: FixedField; readonly at: number }
  | { readonly kind: 'metadata'; readonly key: string; readonly at: number }

/** What a comparison can test: a field, or the length of an array field. */
export type Operand = FieldRef | { readonly kind: 'array_length'; readonly of: FieldRef; readonly at: number }

export type Scalar = string | number | boolean
export type CompareOp = '==' | '!=' | '<' | '<=' | '>' | '>='

export type FilterNode =
  | { readonly type: 'and' | 'or'; readonly items: readonly FilterNode[] }
  | { readonly type: 'not'; readonly item: FilterNode }
  | {
      readonly type: 'compare'
      readonly left: Operand
      readonly op: CompareOp
      readonly value: Scalar
      readonly at: number
    }
  | {
      readonly type: 'in'
      readonly left: Operand
      readonly values: readonly Scalar[]
      readonly negated: boolean
      readonly at: number
    }
  | { readonly type: 'like'; readonly field: FieldRef; readonly pattern: string; readonly at: number }
  | { readonly type: 'null'; readonly field: FieldRef; readonly negated: boolean; readonly at: number }
  /** `array_contains`/`json_contains` (one), `*_all`, `*_any`. */
  | {
      readonly type: 'contains'
      readonly mode: 'one' | 'all' | 'any'
      readonly field: FieldRef
      readonly values: readonly Scalar[]
      readonly at: number
    }

/** The custom metadata keys a filter names, each with its first position, in order of appearance. */
export function metadataKeysOf(node: FilterNode): { readonly key: string; readonly at: number }[] {
  const found = new Map<string, number>()
  const field = (f: FieldRef) => {
    if (f.kind === 'metadata' && !found.has(f.key)) found.set(f.key, f.at)
  }
  const operand = (o: Operand) => field(o.kind === 'array_length' ? o.of : o)
  const walk = (n: FilterNode): void => {
    switch (n.type) {
      case 'and':
      case 'or':
        n.items.forEach(walk)
        return
      case 'not':
        return walk(n.item)
      case 'compare':
      case 'in':
        return operand(n.left)
      default:
        return field(n.field)
    }
  }
  walk(node)
  return [...found].map(([key, at]) => ({ key, at }))
}
