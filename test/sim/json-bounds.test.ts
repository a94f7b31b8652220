/** The JSON generator stops at its budget whatever the schema asks for (issue 11). */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { jsonFromSchema, maxJsonChars } from '../../sim/json-from-schema.js'
import { SeededRandom } from '../../sim/seeded-random.js'

const test = suite('sim: schema-driven JSON bounded by its budget')

function generate(schema: unknown, budget = 1000) {
  return jsonFromSchema(schema, new SeededRandom(1), budget)
}

/**
 * A schema node that counts how often the generator walks it whole: its keys listed (an object)
 * or its first item read (an array, however it is iterated). Work is counted, never timed.
 */
function walked<T extends object>(node: T): { node: T; walks: () => number } {
  let walks = 0
  const proxy = new Proxy(node, {
    ownKeys(target) {
      if (!Array.isArray(target)) walks++
      return Reflect.ownKeys(target)
    },
    get(target, key, receiver) {
      if (Array.isArray(target) && key === '0') walks++
      return Reflect.get(target, key, receiver)
    },
  })
  return { node: proxy, walks: () => walks }
}

const selfRequired = {
  $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } }, required: ['next'] } },
  $ref: '#/$defs/node',
}

test('schemas asking for more than the budget stop at it, incomplete', () => {
  const hostile: [string, unknown][] = [
    ['minLength 1e9', { type: 'string', minLength: 1e9 }],
    ['minItems 1e9', { type: 'array', minItems: 1e9, items: { type: 'integer' } }],
    ['minItems 1e9 of empty objects', { type: 'array', minItems: 1e9, items: { type: 'object' } }],
    [
      'nested minItems',
      {
        type: 'array',
        minItems: 1e5,
        items: { type: 'array', minItems: 1e5, items: { type: 'string', minLength: 1e5 } },
      },
    ],
    ['maxLength below minLength', { type: 'string', minLength: 1e9, maxLength: 3 }],
    ['a pattern (not honoured)', { type: 'string', pattern: '^(a+)+$', minLength: 1e9 }],
  ]
  for (const [what, schema] of hostile) {
    const json = generate(schema)
    assert.not.ok(json.complete, what)
    assert.is(json.text.length, 1000, what)
  }
})

test('a schema that requires itself, or a ref cycle through anyOf, stops at the nesting limit', () => {
  for (const schema of [selfRequired, { $defs: { a: { anyOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' }]) {
    const json = generate(schema, 1e6)
    assert.not.ok(json.complete)
    assert.ok(json.text.length < 10_000)
  }
})

test('a recursive schema that does not require itself ends, complete; deep nesting stays valid', () => {
  const tree = {
    type: 'object',
    properties: { children: { type: 'array', items: { $ref: '#' } }, leaf: { type: 'boolean' } },
    required: ['leaf'],
  }
  const json = generate(tree, 1e6)
  assert.ok(json.complete)
  JSON.parse(json.text)
})

test('work is bounded by the output: a node with 100,000 keywords repeated as items is read once', () => {
  const keywords: Record<string, unknown> = { type: 'null' }
  for (let i = 0; i < 100_000; i++) keywords[`k${i}`] = i
  const wide = walked(keywords)
  const schema = {
    $defs: { wide: wide.node },
    type: 'array',
    minItems: 1e9,
    items: { type: 'array', minItems: 1e9, items: { $ref: '#/$defs/wide', description: 'x' } },
  }
  const json = generate(schema, 200_000)
  assert.not.ok(json.complete)
  const items = json.text.split('null').length - 1
  assert.ok(items > 1000, `${items} items`)
  assert.is(wide.walks(), 1, `the wide node is read once for ${items} items`)
  const required = walked(Array.from({ length: 100_000 }, () => 'a'))
  const dup = generate({ type: 'array', minItems: 1e9, items: { type: 'object', required: required.node } }, 200_000)
  const objects = dup.text.split('{').length - 1
  assert.ok(objects > 1000, `${objects} objects`)
  assert.is(required.walks(), 1, `the required list is read once for ${objects} objects`)
  assert.ok(dup.text.startsWith('[{"a":'))
})

test('the budget never exceeds the hard cap; bad refs and __proto__ keys are harmless', () => {
  const json = generate({ type: 'string', minLength: 1e12 }, 1e12)
  assert.is(json.text.length, maxJsonChars)
  assert.ok(generate({ $ref: '#/%E0%A4%A' }, 100).complete)
  const proto = JSON.parse(
    '{"allOf":[{"__proto__":{"type":"integer"},"type":"object","properties":{"__proto__":{"type":"integer"}},"required":["__proto__"]}]}',
  )
  const out = generate(proto, 100)
  assert.ok(out.complete)
  assert.is(Object.getOwnPropertyDescriptor(JSON.parse(out.text), '__proto__')?.value !== undefined, true)
})

test.run()
