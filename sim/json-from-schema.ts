/**
 * JSON text that satisfies a JSON Schema, for tool-call arguments and `json_schema` replies. It
 * covers what tool and response schemas use in practice: types, required and optional
 * properties, enum and const, string and number bounds, arrays with minItems, nesting, local
 * `$ref`, and the first branch of anyOf/oneOf. `pattern` is not honoured.
 *
 * The text is written within a budget of characters, as a server's guided decoding stops at
 * max_tokens: a schema may ask for more than any reply can hold (`minLength: 1e9`, `minItems:
 * 1e9`, a property that requires itself), and the simulator runs in the gateway's process, so
 * generation stops at the budget and reports the text incomplete (finish_reason `length`), never
 * holding more than the budget. Every value written takes at least one character, so the work
 * too is bounded by the budget; what is derived from a schema node (its resolved `$ref`, merged
 * branches, property names) is derived once per node, however many array items repeat it.
 */
import { isObject, type JsonObject } from './body-fields.js'
import type { SeededRandom } from './seeded-random.js'
import { shortPhrase } from './text-generation.js'

export interface GeneratedJson {
  text: string
  /** False when the budget (or the nesting limit) cut the value short: the text is not valid JSON. */
  complete: boolean
}

/** The most characters ever generated for one value, whatever the token budget allows (4 MiB). */
export const maxJsonChars = 4 * 1024 * 1024

/** Past this depth of objects and arrays only what is required is generated, so recursive schemas end. */
const maxDepth = 8
/**
 * Values nested deeper than this (counting `$ref`, anyOf and allOf hops) stop generation as the
 * budget does. Only a schema that requires itself, which no finite value satisfies, gets here.
 */
const maxNesting = 128

export function jsonFromSchema(schema: unknown, random: SeededRandom, maxChars: number): GeneratedJson {
  const out = new BoundedText(Math.max(0, Math.min(maxChars, maxJsonChars)))
  try {
    new SchemaWriter(schema, random, out).value(schema, 0, 0)
    return { text: out.text(), complete: true }
  } catch (err) {
    if (err instanceof BudgetReached) return { text: out.text(), complete: false }
    throw err
  }
}

/** Thrown to unwind the recursion once the budget is spent. */
class BudgetReached extends Error {}

class BoundedText {
  private readonly parts: string[] = []
  private length = 0

  constructor(private readonly max: number) {}

  write(s: string): void {
    if (this.length + s.length > this.max) {
      this.parts.push(s.slice(0, this.max - this.length))
      this.length = this.max
      throw new BudgetReached('json budget reached')
    }
    this.parts.push(s)
    this.length += s.length
  }

  text(): string {
    return this.parts.join('')
  }
}

class SchemaWriter {
  private readonly resolvedNodes = new WeakMap<JsonObject, JsonObject>()
  private readonly mergedNodes = new WeakMap<JsonObject, JsonObject>()
  private readonly literals = new WeakMap<JsonObject, string | undefined>()
  private readonly types = new WeakMap<JsonObject, string | undefined>()
  private readonly names = new WeakMap<JsonObject, { all: string[]; required: string[] }>()

  constructor(
    private readonly root: unknown,
    private readonly random: SeededRandom,
    private readonly out: BoundedText,
  ) {}

  value(schema: unknown, depth: number, nesting: number): void {
    if (nesting > maxNesting) throw new BudgetReached('json nesting limit reached')
    if (schema === true || !isObject(schema)) return this.out.write(JSON.stringify(shortPhrase(this.random, 2)))
    const resolved = this.resolve(schema)
    const literal = this.literal(resolved)
    if (literal !== undefined) return this.out.write(literal)
    const branches = resolved.anyOf ?? resolved.oneOf
    if ((Array.isArray(branches) && branches.length > 0) || Array.isArray(resolved.allOf)) {
      return this.value(this.merged(resolved), depth, nesting + 1)
    }
    switch (this.typeOf(resolved)) {
      case 'object':
        return this.object(resolved, depth + 1, nesting + 1)
      case 'array':
        return this.array(resolved, depth + 1, nesting + 1)
      case 'string':
        return this.string(resolved)
      case 'integer':
        return this.out.write(JSON.stringify(generateNumber(resolved, this.random, true)))
      case 'number':
        return this.out.write(JSON.stringify(generateNumber(resolved, this.random, false)))
      case 'boolean':
        return this.out.write(this.random.next() < 0.5 ? 'true' : 'false')
      case 'null':
        return this.out.write('null')
      default:
        return this.out.write(JSON.stringify(shortPhrase(this.random, 2)))
    }
  }

  private object(schema: JsonObject, depth: number, nesting: number): void {
    const properties = isObject(schema.properties) ? schema.properties : {}
    const names = this.propertyNames(schema, properties)
    // Past the depth limit only what is required, so recursive schemas still terminate.
    const chosen = depth > maxDepth ? names.required : names.all
    this.out.write('{')
    for (let i = 0; i < chosen.length; i++) {
      const name = chosen[i]!
      this.out.write(`${i > 0 ? ',' : ''}${JSON.stringify(name)}:`)
      this.value(Object.hasOwn(properties, name) ? properties[name] : {}, depth, nesting)
    }
    this.out.write('}')
  }

  private array(schema: JsonObject, depth: number, nesting: number): void {
    const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0
    const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : []
    const wanted = depth > maxDepth ? minItems : Math.max(minItems, prefix.length, 1)
    const count = Math.min(wanted, maxItems)
    this.out.write('[')
    // Each item writes at least one character, so `minItems: 1e9` ends at the budget.
    for (let i = 0; i < count; i++) {
      if (i > 0) this.out.write(',')
      this.value(prefix[i] ?? schema.items ?? {}, depth, nesting)
    }
    this.out.write(']')
  }

  private string(schema: JsonObject): void {
    const byFormat = stringForFormat(schema.format, this.random)
    if (byFormat !== undefined) return this.out.write(JSON.stringify(byFormat))
    const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0
    const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity
    // Phrases are strung together until minLength, each cut to fit the longest allowed; phrases are
    // ASCII without quotes or escapes, so their characters are the JSON's and the schema's.
    const cap = Math.max(minLength, maxLength)
    this.out.write('"')
    let written = 0
    let piece = shortPhrase(this.random, 3)
    for (;;) {
      const take = piece.length <= cap - written ? piece : piece.slice(0, cap - written)
      this.out.write(take)
      written += take.length
      if (written >= minLength || written >= cap) break
      piece = ` ${shortPhrase(this.random, 3)}`
    }
    this.out.write('"')
  }

  private resolve(schema: JsonObject): JsonObject {
    let resolved = this.resolvedNodes.get(schema)
    if (resolved) return resolved
    resolved = schema
    // A few hops at most: refs to refs exist, cycles of bare refs do not in sane schemas.
    for (let hops = 0; hops < 8 && typeof resolved.$ref === 'string'; hops++) {
      const target = lookupPointer(this.root, resolved.$ref)
      if (!isObject(target)) break
      const { $ref: _ref, ...rest } = resolved
      resolved = { ...target, ...rest }
    }
    this.resolvedNodes.set(schema, resolved)
    return resolved
  }

  /** The first branch of anyOf/oneOf, or all of allOf, merged with the keywords beside them. */
  private merged(schema: JsonObject): JsonObject {
    let merged = this.mergedNodes.get(schema)
    if (merged) return merged
    const branches = schema.anyOf ?? schema.oneOf
    merged =
      Array.isArray(branches) && branches.length > 0
        ? mergeSiblings(schema, branches[0])
        : mergeAll(schema, schema.allOf as unknown[])
    this.mergedNodes.set(schema, merged)
    return merged
  }

  /** The text of `const` or the first `enum` value, when the node has one. */
  private literal(schema: JsonObject): string | undefined {
    if (this.literals.has(schema)) return this.literals.get(schema)
    let literal: string | undefined
    if ('const' in schema) literal = JSON.stringify(schema.const) ?? 'null'
    else if (Array.isArray(schema.enum) && schema.enum.length > 0) literal = JSON.stringify(schema.enum[0]) ?? 'null'
    this.literals.set(schema, literal)
    return literal
  }

  private typeOf(schema: JsonObject): string | undefined {
    if (this.types.has(schema)) return this.types.get(schema)
    const type = pickType(schema)
    this.types.set(schema, type)
    return type
  }

  private propertyNames(schema: JsonObject, properties: JsonObject): { all: string[]; required: string[] } {
    let names = this.names.get(schema)
    if (names) return names
    const required = [...new Set(stringList(schema.required))]
    names = { all: [...new Set([...required, ...Object.keys(properties)])], required }
    this.names.set(schema, names)
    return names
  }
}

function lookupPointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined
  let node: unknown = root
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    let key: string
    try {
      key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')
    } catch {
      return undefined // a malformed escape points nowhere
    }
    node = isObject(node) && Object.hasOwn(node, key) ? node[key] : undefined
  }
  return node
}

/** A branch of anyOf/oneOf keeps the keywords written beside it (e.g. `description`, `$defs`). */
function mergeSiblings(parent: JsonObject, branch: unknown): JsonObject {
  const { anyOf: _a, oneOf: _o, ...rest } = parent
  return isObject(branch) ? { ...rest, ...branch } : rest
}

/**
 * One pass over the parts, each read once, so a long allOf costs its length. Entries are gathered
 * and defined, never assigned, so a key named `__proto__` stays a key.
 */
function mergeAll(parent: JsonObject, parts: unknown[]): JsonObject {
  const { allOf: _all, ...rest } = parent
  const objects = parts.filter(isObject)
  const properties = Object.fromEntries([
    ...objects.flatMap((p) => (isObject(p.properties) ? Object.entries(p.properties) : [])),
  ]) as JsonObject
  const required = new Set<string>(stringList(rest.required))
  for (const part of objects) for (const name of stringList(part.required)) required.add(name)
  const merged = Object.fromEntries([
    ...Object.entries(rest),
    ...objects.flatMap((p) => Object.entries(p)),
  ]) as JsonObject
  return {
    ...merged,
    properties: { ...(isObject(rest.properties) ? rest.properties : {}), ...properties },
    required: [...required],
  }
}

function pickType(schema: JsonObject): string | undefined {
  const type = schema.type
  if (typeof type === 'string') return type
  if (Array.isArray(type)) {
    // Prefer a real value over null when a field is nullable.
    const real = type.find((t) => t !== 'null')
    return typeof real === 'string' ? real : 'null'
  }
  if (isObject(schema.properties) || Array.isArray(schema.required)) return 'object'
  if (schema.items !== undefined || schema.prefixItems !== undefined) return 'array'
  if (schema.minimum !== undefined || schema.maximum !== undefined) return 'number'
  return undefined
}

function stringForFormat(format: unknown, random: SeededRandom): string | undefined {
  switch (format) {
    case 'date-time':
      return new Date(Date.UTC(2025, 0, 1 + random.int(0, 364), random.int(0, 23))).toISOString()
    case 'date':
      return new Date(Date.UTC(2025, 0, 1 + random.int(0, 364))).toISOString().slice(0, 10)
    case 'time':
      return `${String(random.int(0, 23)).padStart(2, '0')}:${String(random.int(0, 59)).padStart(2, '0')}:00`
    case 'email':
      return `user${random.int(1, 999)}@example.com`
    case 'uri':
    case 'url':
      return `https://example.com/${random.hex(8)}`
    case 'uuid':
      return `${random.hex(8)}-${random.hex(4)}-4${random.hex(3)}-a${random.hex(3)}-${random.hex(12)}`
    default:
      return undefined
  }
}

function generateNumber(schema: JsonObject, random: SeededRandom, integer: boolean): number {
  let low = numberOr(schema.minimum, numberOr(schema.exclusiveMinimum, -Infinity))
  let high = numberOr(schema.maximum, numberOr(schema.exclusiveMaximum, Infinity))
  const exclusiveLow = typeof schema.exclusiveMinimum === 'number' && schema.minimum === undefined
  const exclusiveHigh = typeof schema.exclusiveMaximum === 'number' && schema.maximum === undefined
  if (low === -Infinity && high === Infinity) {
    low = 0
    high = 100
  } else if (low === -Infinity) low = high - 100
  else if (high === Infinity) high = low + 100
  if (integer) {
    const min = Math.ceil(exclusiveLow ? Math.floor(low) + 1 : low)
    const max = Math.floor(exclusiveHigh ? Math.ceil(high) - 1 : high)
    return max < min ? min : random.int(min, max)
  }
  const value = low + random.next() * (high - low)
  const rounded = Math.round(value * 100) / 100
  if ((exclusiveLow && rounded <= low) || rounded < low || (exclusiveHigh && rounded >= high) || rounded > high) {
    return (low + high) / 2
  }
  return rounded
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []
}
