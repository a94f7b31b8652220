/** Unit checks of the generators behind the replies: no server needed. */
import { Ajv } from 'ajv'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { jsonFromSchema } from '../../sim/json-from-schema.js'
import { testFormats } from './helpers.js'
import { PrefixCache } from '../../sim/prefix-cache.js'
import { SeededRandom } from '../../sim/seeded-random.js'
import { responseLength } from '../../sim/text-generation.js'
import { decodeTokens, encodeText, splitWords } from '../../sim/tokens.js'

const generation = suite('sim: generators')
const ajv = new Ajv({ allErrors: true, strict: false, formats: testFormats })

const schemas: unknown[] = [
  {
    type: 'object',
    properties: { a: { type: 'string', maxLength: 3 }, b: { type: ['integer', 'null'], minimum: -5, maximum: -2 } },
    required: ['a', 'b'],
  },
  { type: 'array', items: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }, minItems: 4, maxItems: 4 },
  {
    oneOf: [
      {
        type: 'object',
        properties: { kind: { const: 'circle' }, r: { type: 'number', minimum: 1 } },
        required: ['kind', 'r'],
      },
      { type: 'string' },
    ],
  },
  {
    allOf: [
      { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] },
      { properties: { when: { type: 'string', format: 'date-time' } }, required: ['when'] },
    ],
  },
  { type: 'object', properties: { tree: { $ref: '#' }, leaf: { type: 'boolean' } }, required: ['leaf'] },
  {
    type: 'object',
    properties: { list: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], minItems: 2 } },
    required: ['list'],
  },
]

generation('jsonFromSchema satisfies every schema, whatever the seed', () => {
  for (const schema of schemas) {
    for (let seed = 0; seed < 25; seed++) {
      const json = jsonFromSchema(schema, new SeededRandom(seed), 100_000)
      assert.ok(json.complete)
      const value: unknown = JSON.parse(json.text)
      assert.ok(
        ajv.validate(schema as object, value),
        `${JSON.stringify(schema)} → ${JSON.stringify(value)}: ${ajv.errorsText()}`,
      )
    }
  }
})

generation('response lengths stay in [1, max] and reach max about 15% of the time', () => {
  const random = new SeededRandom(7)
  let atMax = 0
  for (let i = 0; i < 2000; i++) {
    const n = responseLength(random, 50)
    assert.ok(n >= 1 && n <= 50)
    if (n === 50) atMax++
  }
  assert.ok(atMax > 200 && atMax < 400, `at max ${atMax} of 2000`)
  for (let i = 0; i < 200; i++) assert.ok(responseLength(random, undefined) >= 1)
  assert.is(responseLength(random, 1), 1)
})

generation('tokens: text round-trips through ids; words keep their spaces', () => {
  const text = 'Ünïcödé and emoji 🙂 survive.'
  assert.is(decodeTokens(encodeText(text)), text)
  assert.is(splitWords(' a  b c ').join(''), ' a  b c ')
  assert.equal(splitWords('one two'), ['one', ' two'])
})

generation('prefix cache: hits only on a shared leading run, LRU-bounded', () => {
  const cache = new PrefixCache(4)
  const base = Array.from({ length: 64 }, (_, i) => i + 100)
  assert.is(cache.lookupAndStore(base), 0)
  assert.is(cache.lookupAndStore([...base.slice(0, 40), 1, 2, 3]), 32)
  const shifted = [0, ...base]
  assert.is(cache.lookupAndStore(shifted), 0, 'the same tokens at another position are another prefix')
  assert.ok(cache.size <= 4)
})

generation.run()
