/**
 * Malformed and hostile JSON bodies, made from a valid body of the route and its schema:
 * truncation, a wrong type for a field of the schema, huge numbers, NaN-like strings, deep
 * nesting, duplicate keys, invalid UTF-8, byte-order marks, an empty body, roots that are not
 * objects, enormous strings (bounded by `maxBytes`), unknown and prototype-named fields.
 */
import type { FuzzRandom } from './random.js'

export interface JsonMutation {
  readonly mutation: string
  readonly body: Buffer
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** Values of every JSON type, for "a wrong type": at least one of them is wrong for any field. */
const anyType: readonly Json[] = [null, true, false, 0, -1, 1.5, 'x', '', [], [null], {}, { a: 1 }, [[[]]], 'NaN']

/** Number literals JSON.parse reads as something surprising (Infinity, -0, a rounded integer). */
const hugeNumbers = [
  '1e999',
  '-1e999',
  '1e308',
  '-0',
  '9007199254740993',
  '123456789012345678901234567890',
  '0.1e-400',
  '4294967296',
  '-2147483649',
  '1.0000000000000000001',
]
const nanLike = [
  'NaN',
  'Infinity',
  '-Infinity',
  'nan',
  'null',
  'undefined',
  '1e999',
  '0x10',
  ' 4 ',
  '4abc',
  '',
  '\u0000',
  'true',
]
/** Strings that name something on every object's prototype: a lookup table keyed by client text must not find them. */
const prototypeNames = [
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  'isPrototypeOf',
]

/** Byte sequences that are not UTF-8: stray continuation, overlong, surrogate, past U+10FFFF, cut. */
const badUtf8 = [
  [0xff],
  [0xc3, 0x28],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
  [0x80],
  [0xfe, 0xfe, 0xff, 0xff],
]

const nestings = [129, 200, 1_000, 6_000, 10_000, 50_000]

function text(value: unknown): string {
  return JSON.stringify(value)
}

/** A path to a value inside `body`, chosen at random (objects and arrays walked down). */
function randomPath(rng: FuzzRandom, body: Json): (string | number)[] {
  const path: (string | number)[] = []
  let at: Json = body
  while (at !== null && typeof at === 'object' && rng.chance(0.6)) {
    const keys: (string | number)[] = Array.isArray(at) ? at.map((_, i) => i) : Object.keys(at)
    if (keys.length === 0) break
    const k = rng.pick(keys)
    path.push(k)
    at = (at as Record<string | number, Json>)[k]!
  }
  return path
}

function setAt(body: Json, path: readonly (string | number)[], value: Json): Json {
  if (path.length === 0) return value
  const copy = structuredClone(body) as Record<string | number, Json>
  let at = copy
  for (const k of path.slice(0, -1)) at = at[k] as Record<string | number, Json>
  at[path[path.length - 1]!] = value
  return copy as Json
}

/** The schema's top-level properties (and one level into array items), as paths. */
function schemaFields(schema: object | undefined): string[][] {
  const props =
    (schema as { properties?: Record<string, { items?: { properties?: Record<string, unknown> } }> } | undefined)
      ?.properties ?? {}
  const out: string[][] = []
  for (const [name, sub] of Object.entries(props)) {
    out.push([name])
    for (const inner of Object.keys(sub.items?.properties ?? {})) out.push([name, '0', inner])
  }
  return out
}

/** Sets a field given as a path of names, making objects (or a one-item array for '0') on the way. */
function setField(body: Json, path: readonly string[], value: Json): Json {
  const copy = structuredClone(body) as Record<string, Json>
  let at: Record<string, Json> = copy
  path.forEach((k, i) => {
    if (i === path.length - 1) {
      at[k] = value
      return
    }
    const next = at[k]
    if (next === null || typeof next !== 'object') at[k] = path[i + 1] === '0' ? [{}] : {}
    else if (Array.isArray(next) && (next[0] === null || typeof next[0] !== 'object')) next[0] = {}
    at = at[k] as Record<string, Json>
  })
  return copy as Json
}

type Maker = (rng: FuzzRandom, seed: Json, fields: string[][], index: number, maxBytes: number) => JsonMutation

const makers: Record<string, Maker> = {
  truncated(rng, seed) {
    const t = text(seed)
    const cut = rng.int(0, Math.max(0, t.length - 1))
    return { mutation: `truncated at ${cut} of ${t.length}`, body: Buffer.from(t.slice(0, cut)) }
  },
  'wrong type'(rng, seed, fields, index) {
    // Field by field in turn, so that a short run covers every field of the schema.
    const path = fields.length > 0 ? fields[index % fields.length]! : randomPath(rng, seed).map(String)
    const value = rng.pick(anyType)
    return {
      mutation: `${path.join('.') || 'root'} = ${text(value)}`,
      body: Buffer.from(text(setField(seed, path, value))),
    }
  },
  'wrong type anywhere'(rng, seed) {
    const path = randomPath(rng, seed)
    const value = rng.pick(anyType)
    return {
      mutation: `${path.join('.') || 'root'} = ${text(value)}`,
      body: Buffer.from(text(setAt(seed, path, value))),
    }
  },
  'huge number'(rng, seed, fields) {
    const path = fields.length > 0 && rng.chance(0.7) ? rng.pick(fields) : randomPath(rng, seed).map(String)
    const literal = rng.pick(hugeNumbers)
    const marker = '"__fuzz_number__"'
    const t = text(setField(seed, path.length ? path : ['max_tokens'], '__fuzz_number__')).replace(marker, literal)
    return { mutation: `${path.join('.') || 'max_tokens'} = ${literal}`, body: Buffer.from(t) }
  },
  'NaN-like string'(rng, seed, fields) {
    const path = fields.length > 0 ? rng.pick(fields) : ['max_tokens']
    const value = rng.pick(nanLike)
    return { mutation: `${path.join('.')} = ${text(value)}`, body: Buffer.from(text(setField(seed, path, value))) }
  },
  'deep nesting'(rng, seed, fields) {
    const depth = rng.pick(nestings)
    const open = rng.chance(0.5) ? '[' : '{"a":'
    const close = open === '[' ? ']' : '}'
    const nested = open.repeat(depth) + (open === '[' ? '' : '1') + close.repeat(depth)
    const path = fields.length > 0 ? rng.pick(fields) : ['x']
    const t = text(setField(seed, path, '__fuzz_nested__')).replace('"__fuzz_nested__"', nested)
    return { mutation: `${path.join('.')} nested ${depth} deep with ${open}`, body: Buffer.from(t) }
  },
  'deep nesting unclosed'(rng) {
    const depth = rng.pick(nestings)
    return { mutation: `${depth} unclosed brackets`, body: Buffer.from('['.repeat(depth)) }
  },
  'duplicate keys'(rng, seed) {
    if (seed === null || typeof seed !== 'object' || Array.isArray(seed)) return makers.truncated!(rng, seed, [], 0, 0)
    const keys = Object.keys(seed)
    const k = keys.length ? rng.pick(keys) : 'model'
    const dup = `"${k}":${text(rng.pick(anyType))},`
    const t = text(seed)
    return { mutation: `"${k}" twice`, body: Buffer.from(`{${dup}${t.slice(1)}`.replace(/,}$/, '}')) }
  },
  'invalid UTF-8'(rng, seed) {
    const t = Buffer.from(text(seed))
    const bad = Buffer.from(rng.pick(badUtf8))
    // Inside a string value when there is one, else anywhere.
    const quote = t.indexOf('":"')
    const at = quote >= 0 && rng.chance(0.7) ? quote + 3 : rng.int(0, t.length)
    return {
      mutation: `bytes ${bad.toString('hex')} at ${at}`,
      body: Buffer.concat([t.subarray(0, at), bad, t.subarray(at)]),
    }
  },
  'byte-order mark'(rng, seed) {
    const boms: [string, Buffer][] = [
      ['UTF-8 BOM', Buffer.from([0xef, 0xbb, 0xbf])],
      ['UTF-16LE BOM', Buffer.from([0xff, 0xfe])],
      ['UTF-16BE BOM', Buffer.from([0xfe, 0xff])],
    ]
    const [name, bom] = rng.pick(boms)
    const utf16 = name.startsWith('UTF-16') && rng.chance(0.5)
    const body = utf16 ? Buffer.from(text(seed), 'utf16le') : Buffer.from(text(seed))
    return { mutation: `${name}${utf16 ? ', body in UTF-16' : ''}`, body: Buffer.concat([bom, body]) }
  },
  'empty body'(rng) {
    const body = rng.pick(['', ' ', '\n', '\u0000'])
    return { mutation: `body ${text(body)}`, body: Buffer.from(body) }
  },
  'not an object'(rng) {
    const root = rng.pick(['[]', 'null', '1', '"x"', 'true', '[{}]', '-0', '1e999', '""'])
    return { mutation: `root ${root}`, body: Buffer.from(root) }
  },
  'enormous string'(rng, seed, fields, _index, maxBytes) {
    const path = fields.length > 0 ? rng.pick(fields) : ['model']
    const length = rng.size(10_000, maxBytes)
    const value = rng.pick(['a', 'é', '\u{1F600}', '"', '\\', '\n', '<'])
    return {
      mutation: `${path.join('.')} = ${text(value)} × ${length}`,
      body: Buffer.from(text(setField(seed, path, value.repeat(length)))),
    }
  },
  'unknown fields'(rng, seed) {
    if (seed === null || typeof seed !== 'object' || Array.isArray(seed))
      return makers['not an object']!(rng, seed, [], 0, 0)
    const n = rng.size(1, 5_000)
    const extra: Record<string, Json> = {}
    for (let i = 0; i < n; i++) extra[`fuzz_${i}`] = rng.pick(anyType)
    return { mutation: `${n} unknown fields`, body: Buffer.from(text({ ...seed, ...extra })) }
  },
  'prototype-named value'(rng, seed, fields) {
    const path = fields.length > 0 ? rng.pick(fields) : randomPath(rng, seed).map(String)
    const value = rng.pick(prototypeNames)
    return {
      mutation: `${path.join('.') || 'root'} = ${text(value)}`,
      body: Buffer.from(text(setField(seed, path.length ? path : ['model'], value))),
    }
  },
  'prototype-named key'(rng, seed) {
    // A key named for the prototype in some object of the body (a verdict's questions or criteria, say).
    const path = randomPath(rng, seed)
    const name = rng.pick(prototypeNames)
    const value = rng.pick<Json>([
      { type: 'choice', instructions: 'x', criteria: { [name]: null, b: null } },
      1,
      'x',
      null,
    ])
    const marker = '"__fuzz_key__"'
    const t = text(setAt(seed, path, { __fuzz_key__: value })).replace(marker, `"${name}"`)
    return { mutation: `{"${name}": ${text(value)}} at ${path.join('.') || 'root'}`, body: Buffer.from(t) }
  },
  'prototype names'(rng, seed) {
    const name = rng.pick(prototypeNames)
    const value = rng.pick<Json>([{ polluted: true, isAdmin: true }, null, 'x', { prototype: { polluted: true } }])
    const t = text(seed)
    const inner = `"${name}":${text(value)}`
    return {
      mutation: `"${name}": ${text(value)}`,
      body: Buffer.from(t.startsWith('{') && t !== '{}' ? `{${inner},${t.slice(1)}` : `{${inner}}`),
    }
  },
  escapes(rng, seed, fields) {
    const path = fields.length > 0 ? rng.pick(fields) : ['model']
    const escape = rng.pick(['\\ud800', '\\udfff\\ud800', '\\u0000', '\\x41', '\\', '\\u12', '\\uZZZZ', '\\/'])
    const t = text(setField(seed, path, '__fuzz_escape__')).replace('__fuzz_escape__', escape)
    return { mutation: `${path.join('.')} = "${escape}"`, body: Buffer.from(t) }
  },
  garbage(rng) {
    const n = rng.size(1, 4096)
    return { mutation: `${n} random bytes`, body: rng.bytes(n) }
  },
}

export const jsonMutationNames = Object.keys(makers)

/** One mutation of `seed` (a valid body of the route), the kind chosen at random. */
export function jsonMutation(
  rng: FuzzRandom,
  seed: unknown,
  schema: object | undefined,
  index: number,
  maxBytes: number,
): JsonMutation {
  const name = rng.pick(jsonMutationNames)
  const made = makers[name]!(rng, seed as Json, schemaFields(schema), index, maxBytes)
  return { mutation: `${name}: ${made.mutation}`, body: made.body }
}
