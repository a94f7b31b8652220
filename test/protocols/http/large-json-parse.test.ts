import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import crypto from 'node:crypto'
import { parseJson, parseJsonTurns } from '../../../protocols/http/json-body.js'
import { PIECE } from '../../../protocols/http/large-json-parse.js'
import { GatewayError } from '../../../kernel/contract/index.js'

const test = suite('protocols/http: a large body parsed in turns')

const MiB = 1 << 20

/** What JSON.parse makes of `text`, and what the turns make of it: the same value, keys in the same order. */
async function sameAsJsonParse(text: string, message?: string): Promise<unknown> {
  const buf = Buffer.from(text)
  assert.ok(buf.length >= MiB, 'the body is large')
  const expected = JSON.parse(text) as unknown
  const parsed = await parseJsonTurns(buf, 128)
  assert.equal(parsed, expected, message)
  assert.equal(keyOrder(parsed), keyOrder(expected), message)
  return parsed
}

/** Every object's own keys, in order, depth first. */
function keyOrder(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) keyOrder(x, out)
  else if (v && typeof v === 'object') {
    out.push(Object.keys(v).join(','))
    for (const x of Object.values(v)) keyOrder(x, out)
  }
  return out
}

async function refusal(text: string | Buffer): Promise<GatewayError> {
  try {
    await parseJsonTurns(typeof text === 'string' ? Buffer.from(text) : text, 128)
  } catch (err) {
    if (err instanceof GatewayError) return err
    throw err
  }
  throw new Error('not refused')
}

test('one long message: the same string, escapes and all', async () => {
  await sameAsJsonParse(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'word '.repeat(MiB) }] }))
  // Escapes of every kind, so that slices end next to (never inside) them.
  const escapes = String.raw`a\"b\n\t\u0001\u2028\u00e9 \\ \\\\\"`
  await sameAsJsonParse(`{"s": "${escapes.repeat((3 * MiB) / escapes.length)}"}`)
  await sameAsJsonParse(JSON.stringify({ s: 'x\\'.repeat(MiB) }))
  await sameAsJsonParse(JSON.stringify({ s: '\n'.repeat(MiB) }))
})

test('a slice of a string never ends inside an escape or a UTF-8 sequence, wherever they fall', async () => {
  for (let shift = 0; shift < 8; shift++) {
    const pad = 'p'.repeat(2 * PIECE - 3 + shift)
    await sameAsJsonParse(`{"s": "${pad}\\ud83d\\ude00\\u00e9\\\\\\"z${'q'.repeat(MiB)}"}`, `escapes at +${shift}`)
    await sameAsJsonParse(JSON.stringify({ s: `${pad}😀é你€${'q'.repeat(MiB)}` }), `UTF-8 at +${shift}`)
  }
})

test('bytes that are not UTF-8 decode as JSON.parse of the decoded text has them', async () => {
  const junk = crypto.randomBytes(3 * MiB).map((b) => (b === 0x22 || b === 0x5c || b < 0x20 ? 0x41 : b))
  const buf = Buffer.concat([Buffer.from('{"s": "'), junk, Buffer.from('"}')])
  assert.equal(await parseJsonTurns(buf, 128), JSON.parse(buf.toString('utf8')))
})

test('many members, large arrays and objects, nested: the same value, keys in the same order', async () => {
  const messages = Array.from({ length: 60_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m ${i}` }))
  await sameAsJsonParse(JSON.stringify({ model: 'm', messages }))
  await sameAsJsonParse(JSON.stringify({ prompt: Array.from({ length: 400_000 }, (_, i) => i * 0.5 - 7) }))
  const nested = { a: { b: [{ c: 'x'.repeat(MiB), d: [1, 'y'.repeat(MiB), { e: null }] }, true, false] } }
  await sameAsJsonParse(JSON.stringify(nested, null, 2))
  // Integer keys first, a key repeated (the last value, the first place), `__proto__` an own key.
  const keys = `{"b": 1, "2": "two", "a": "${'z'.repeat(MiB)}", "1": "one", "b": 3, "__proto__": {"x": 1}, "c": [${'"w",'.repeat(300_000)}"w"]}`
  const parsed = (await sameAsJsonParse(keys)) as Record<string, unknown>
  assert.ok(Object.hasOwn(parsed, '__proto__'))
  assert.is(Object.getPrototypeOf(parsed), Object.prototype)
  await sameAsJsonParse(` \n\t ${JSON.stringify([{}, [], '', 0, -1.5e300, 'x'.repeat(MiB), [[[]]], {}])} \r\n`)
})

test('malformed large bodies: 400 with what JSON.parse says of them, as before', async () => {
  const long = 'x'.repeat(MiB)
  const members = '"w",'.repeat(300_000)
  const bad = [
    `{"a": "${long}", }`,
    `{"a" "${long}"}`,
    `{"a": "${long}" "b": 1}`,
    `[${members}]`,
    `[${members}"w"}`,
    `[${members}"w"] x`,
    `{"a": "${long}\u0001"}`,
    `{"a": "${long}\\x"}`,
    `{"a": "${'y'.repeat(MiB - 2)}\\u12"}`,
    `{"a": [${members}"w", 01]}`,
    `{"a": "${long}"`,
    `{"a": "${long}}`,
    `]]{"a": "${long}"}`,
    `{"a": tru, "b": "${long}"}`,
  ]
  for (const text of bad) {
    let expected = ''
    try {
      JSON.parse(text)
    } catch (err) {
      expected = (err as Error).message
    }
    assert.ok(expected, 'JSON.parse refuses it')
    const err = await refusal(text)
    assert.is(err.status, 400)
    assert.is(err.message, `request body is not valid JSON: ${expected}`)
    assert.is(err.code, 'invalid_json')
  }
})

test('nesting past the limit is refused before anything is parsed, as for a small body', async () => {
  const deep = `{"pad": "${' '.repeat(MiB)}", "x": ${'['.repeat(200)}${']'.repeat(200)}, "broken": }`
  const err = await refusal(deep)
  assert.is(err.message, 'request body is nested deeper than 128 levels')
  assert.throws(() => parseJson(Buffer.from(`[${'['.repeat(200)}${']'.repeat(200)}]`), 128), /nested deeper/)
})

test.run()
