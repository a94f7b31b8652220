import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  declaredSize,
  isLargeBody,
  isLargeJson,
  isLargeText,
  jsonBytesInTurns,
  SLICE,
  utf8InTurns,
} from '../../../protocols/http/large-json-write.js'
import { ByteSink } from '../../../protocols/http/byte-sink.js'

const test = suite('protocols/http: a large JSON value written in turns')

const MiB = 1 << 20

async function sameAsStringify(value: unknown, message?: string, sizeHint = 0): Promise<void> {
  const bytes = await jsonBytesInTurns(value, sizeHint)
  assert.ok(bytes.equals(Buffer.from(JSON.stringify(value))), message)
}

test('which values are large: about LARGE_BODY of JSON text or more', () => {
  assert.not.ok(isLargeJson({ model: 'm', messages: [{ role: 'user', content: 'hi' }], n: 1 }))
  assert.ok(isLargeJson({ messages: [{ content: 'x'.repeat(MiB) }] }))
  assert.ok(isLargeJson({ prompt: Array.from({ length: 200_000 }, (_, i) => i) }))
  assert.not.ok(isLargeText('{"a": 1}'))
  assert.ok(isLargeText(`"${'x'.repeat(MiB)}"`))
  assert.not.ok(isLargeText(Buffer.alloc(2 * MiB)))
  assert.equal([declaredSize('123'), declaredSize(undefined), declaredSize('-1'), declaredSize('x')], [123, 0, 0, 0])
  // By the size the client declared; without one, by the walk.
  const big = { messages: [{ content: 'x'.repeat(MiB) }] }
  assert.equal(
    [isLargeBody({}, String(2 * MiB)), isLargeBody(big, '500'), isLargeBody(big, undefined)],
    [true, false, true],
  )
})

test('the bytes of JSON.stringify: long strings plain, escaped, and non-ASCII', async () => {
  await sameAsStringify({ model: 'm', messages: [{ role: 'user', content: 'word '.repeat(MiB) }] }, 'plain', 5 * MiB)
  await sameAsStringify({ s: 'a"b\\c\n\u0001\u2028 é'.repeat(MiB / 8) }, 'escapes')
  await sameAsStringify({ s: '😀 é你€'.repeat(MiB / 4) }, 'non-ASCII')
  // A surrogate pair where a slice would end, and lone halves (escaped, as JSON.stringify does).
  for (let shift = -2; shift <= 2; shift++)
    await sameAsStringify({ s: `${'p'.repeat(SLICE + shift)}😀${'q'.repeat(MiB)}\ud800x\udc00` }, `pair at ${shift}`)
})

test('the bytes of JSON.stringify: many members, omitted ones, toJSON, nesting', async () => {
  const messages = Array.from({ length: 50_000 }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    content: `m ${i}`,
    skipped: undefined,
    f() {},
  }))
  await sameAsStringify({ model: 'm', messages, tail: [undefined, () => 1, Symbol('s'), Number.NaN, -0, 1e21] })
  // Runs of primitives written together, broken by objects and long strings.
  const ids = Array.from({ length: 300_000 }, (_, i) => (i % 5000 === 0 ? { i } : i % 7 ? i * 0.5 : `w${i}`))
  await sameAsStringify({ prompt: [...ids, 'x'.repeat(MiB), ...ids, new Number(3), true, null] })
  // Items with a toJSON of their own are told their own index, as by JSON.stringify.
  const told = Array.from({ length: 100_000 }, (_, i) =>
    i % 1000 === 7 ? { toJSON: (k: string) => `at ${k}` } : { i },
  )
  await sameAsStringify({ told, pad: 'p'.repeat(MiB) })
  const big = 'x'.repeat(MiB)
  await sameAsStringify({
    when: new Date(0),
    gone: { toJSON: () => undefined },
    a: { b: [big, { c: big, d: [1, 2, { toJSON: (key: string) => `key ${key}` }] }] },
    '2': 'two',
    '1': 'one',
    [`k${'"'.repeat(3)}`]: big,
  })
  await sameAsStringify([big, [big], { big }])
})

test('a circular value fails as JSON.stringify does; so does a value with no JSON', async () => {
  const loop: Record<string, unknown> = { s: 'x'.repeat(MiB) }
  loop.self = loop
  try {
    await jsonBytesInTurns(loop)
    assert.unreachable('a cycle was written')
  } catch (err) {
    assert.instance(err, TypeError)
  }
  try {
    await jsonBytesInTurns(undefined)
    assert.unreachable('undefined was written')
  } catch (err) {
    assert.instance(err, TypeError)
  }
})

test('a large text encoded in turns: the bytes of Buffer.from, pairs and lone halves included', async () => {
  for (let shift = -1; shift <= 1; shift++) {
    const text = `${'a'.repeat(2 * SLICE + shift)}😀 é${'b'.repeat(MiB)}\ud800`
    assert.ok((await utf8InTurns(text)).equals(Buffer.from(text)), `shift ${shift}`)
  }
})

test('a byte sink takes text too, growing as it must', () => {
  const sink = new ByteSink(0, [])
  const parts = ['abc', 'é😀', 'x'.repeat(70_000), '']
  for (const p of parts) sink.write(p)
  assert.ok(sink.bytes().equals(Buffer.from(parts.join(''))))
})

test.run()
