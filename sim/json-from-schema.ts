/**
 * A JSON value that satisfies a JSON Schema, for tool-call arguments and `json_schema`
 * replies. It covers what tool and response schemas use in practice: types, required and
 * optional properties, enum and const, string and number bounds, arrays with minItems,
 * nesting, local `$ref`, and the first branch of anyOf/oneOf. `pattern` is not honoured.
 */
import { isObject, type JsonObject } from './body-fields.js'
import type { SeededRandom } from './seeded-random.js'
import { shortPhrase } from './text-generation.js'

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

/** Recursive schemas stop here and take their smallest valid value. */
const maxDepth = 8

export function jsonFromSchema(schema: unknown, random: SeededRandom): JsonValue {
  return generate(schema, { root: schema, random, depth: 0 })
}

interface Walk {
  root: unknown
  random: SeededRandom
  depth: number
}

function generate(schema: unknown, walk: Walk): JsonValue {
  if (schema === true || !isObject(schema)) return shortPhrase(walk.random, 2)
  const resolved = resolveRef(schema, walk.root)
  if ('const' in resolved) return toJson(resolved.const)
  if (Array.isArray(resolved.enum) && resolved.enum.length > 0) return toJson(resolved.enum[0])
  const branches = resolved.anyOf ?? resolved.oneOf
  if (Array.isArray(branches) && branches.length > 0) return generate(mergeSiblings(resolved, branches[0]), walk)
  if (Array.isArray(resolved.allOf)) return generate(mergeAll(resolved, resolved.allOf), walk)
  const next: Walk = { ...walk, depth: walk.depth + 1 }
  switch (pickType(resolved)) {
    case 'object':
      return generateObject(resolved, next)
    case 'array':
      return generateArray(resolved, next)
    case 'string':
      return generateString(resolved, walk.random)
    case 'integer':
      return generateNumber(resolved, walk.random, true)
    case 'number':
      return generateNumber(resolved, walk.random, false)
    case 'boolean':
      return walk.random.next() < 0.5
    case 'null':
      return null
    default:
      return shortPhrase(walk.random, 2)
  }
}

function resolveRef(schema: JsonObject, root: unknown): JsonObject {
  let current = schema
  // A few hops at most: refs to refs exist, cycles of bare refs do not in sane schemas.
  for (let hops = 0; hops < 8 && typeof current.$ref === 'string'; hops++) {
    const target = lookupPointer(root, current.$ref)
    if (!isObject(target)) break
    const { $ref: _ref, ...rest } = current
    current = { ...target, ...rest }
  }
  return current
}

function lookupPointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined
  let node: unknown = root
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')
    node = isObject(node) ? node[key] : undefined
  }
  return node
}

/** A branch of anyOf/oneOf keeps the keywords written beside it (e.g. `description`, `$defs`). */
function mergeSiblings(parent: JsonObject, branch: unknown): JsonObject {
  const { anyOf: _a, oneOf: _o, ...rest } = parent
  return isObject(branch) ? { ...rest, ...branch } : rest
}

function mergeAll(parent: JsonObject, parts: unknown[]): JsonObject {
  const { allOf: _all, ...merged } = parent
  const properties: JsonObject = isObject(merged.properties) ? { ...merged.properties } : {}
  const required = new Set<string>(stringList(merged.required))
  let result: JsonObject = merged
  for (const part of parts) {
    if (!isObject(part)) continue
    result = { ...result, ...part }
    if (isObject(part.properties)) Object.assign(properties, part.properties)
    for (const name of stringList(part.required)) required.add(name)
  }
  return { ...result, properties, required: [...required] }
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

function generateObject(schema: JsonObject, walk: Walk): JsonValue {
  const out: { [key: string]: JsonValue } = {}
  const properties = isObject(schema.properties) ? schema.properties : {}
  const required = stringList(schema.required)
  // Past the depth limit only what is required, so recursive schemas still terminate.
  const names = walk.depth > maxDepth ? required : [...new Set([...required, ...Object.keys(properties)])]
  for (const name of names) out[name] = generate(properties[name] ?? {}, walk)
  return out
}

function generateArray(schema: JsonObject, walk: Walk): JsonValue {
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0
  const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : []
  const wanted = walk.depth > maxDepth ? minItems : Math.max(minItems, prefix.length, 1)
  const count = Math.min(wanted, maxItems)
  const items: JsonValue[] = []
  for (let i = 0; i < count; i++) items.push(generate(prefix[i] ?? schema.items ?? {}, walk))
  return items
}

function generateString(schema: JsonObject, random: SeededRandom): string {
  const byFormat = stringForFormat(schema.format, random)
  if (byFormat !== undefined) return byFormat
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity
  let text = shortPhrase(random, 3)
  while (text.length < minLength) text += ` ${shortPhrase(random, 3)}`
  return Array.from(text).slice(0, Math.max(minLength, Math.min(maxLength, text.length))).join('')
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

function toJson(value: unknown): JsonValue {
  if (value === undefined) return null
  return JSON.parse(JSON.stringify(value)) as JsonValue
}
