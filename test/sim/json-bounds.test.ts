/** The JSON generator stops at its budget whatever the schema asks for (issue 11). */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { jsonFromSchema, maxJsonChars } from '../../sim/json-from-schema.js'
import { SeededRandom } from '../../sim/seeded-random.js'

const test = suite('sim: schema-driven JSON bounded by its budget')

function generate(schema: unknown, budget = 1000) {
  const started = performance.now()
  const json = jsonFromSchema(schema, new SeededRandom(1), budget)
  return { ...json, ms: performance.now() - started }
}

const selfRequired = { $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } }, required: ['next'] } }, $ref: '#/$defs/node' }

test('schemas asking for more than the budget stop at it, incomplete, at once', () => {
  const hostile: [string, unknown][] = [
    ['minLength 1e9', { type: 'string', minLength: 1e9 }],
    ['minItems 1e9', { type: 'array', minItems: 1e9, items: { type: 'integer' } }],
    ['minItems 1e9 of empty objects', { type: 'array', minItems: 1e9, items: { type: 'object' } }],
    ['nested minItems', { type: 'array', minItems: 1e5, items: { type: 'array', minItems: 1e5, items: { type: 'string', minLength: 1e5 } } }],
    ['maxLength below minLength', { type: 'string', minLength: 1e9, maxLength: 3 }],
    ['a pattern (not honoured)', { type: 'string', pattern: '^(a+)+$', minLength: 1e9 }],
  ]
  for (const [what, schema] of hostile) {
    const json = generate(schema)
    assert.not.ok(json.complete, what)
    assert.is(json.text.length, 1000, what)
    assert.ok(json.ms < 1000, `${what}: ${json.ms.toFixed(0)} ms`)
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
  const tree = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } }, leaf: { type: 'boolean' } }, required: ['leaf'] }
  const json = generate(tree, 1e6)
  assert.ok(json.complete)
  JSON.parse(json.text)
})

test('work is bounded by the output: a node with 100,000 keywords repeated as items is read once', () => {
  const wide: Record<string, unknown> = { type: 'null' }
  for (let i = 0; i < 100_000; i++) wide[`k${i}`] = i
  const required = Array.from({ length: 100_000 }, () => 'a')
  const schema = { $defs: { wide }, type: 'array', minItems: 1e9, items: { type: 'array', minItems: 1e9, items: { $ref: '#/$defs/wide', description: 'x' } } }
  const json = generate(schema, 200_000)
  assert.not.ok(json.complete)
  assert.ok(json.ms < 1000, `${json.ms.toFixed(0)} ms`)
  const dup = generate({ type: 'array', minItems: 1e9, items: { type: 'object', required } }, 200_000)
  assert.ok(dup.ms < 1000, `${dup.ms.toFixed(0)} ms`)
  assert.ok(dup.text.startsWith('[{"a":'))
})

test('the budget never exceeds the hard cap; bad refs and __proto__ keys are harmless', () => {
  const json = generate({ type: 'string', minLength: 1e12 }, 1e12)
  assert.is(json.text.length, maxJsonChars)
  assert.ok(generate({ $ref: '#/%E0%A4%A' }, 100).complete)
  const proto = JSON.parse('{"allOf":[{"__proto__":{"type":"integer"},"type":"object","properties":{"__proto__":{"type":"integer"}},"required":["__proto__"]}]}')
  const out = generate(proto, 100)
  assert.ok(out.complete)
  assert.is(Object.getOwnPropertyDescriptor(JSON.parse(out.text), '__proto__')?.value !== undefined, true)
})

test.run()
