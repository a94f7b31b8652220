import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { parseJson, parseJsonTurns } from '../../../protocols/http/json-body.js'
import { GatewayError } from '../../../kernel/contract/index.js'

const test = suite('protocols/http: JSON bodies')

const MiB = 1 << 20
const refusal = async (f: () => unknown): Promise<GatewayError> => {
  try {
    await f()
  } catch (err) {
    if (err instanceof GatewayError) return err
    throw err
  }
  throw new Error('not refused')
}

test('a body over 1 MiB parses in turns to the same value as a small one', async () => {
  const body = { messages: [{ role: 'user', content: 'a "quoted" \\ word '.repeat(MiB / 16) }], n: 1 }
  const buf = Buffer.from(JSON.stringify(body))
  assert.ok(buf.length > MiB)
  assert.equal(await parseJsonTurns(buf, 64), body)
  assert.equal(parseJson(buf, 64), body)
})

test('brackets inside strings, escaped quotes included, do not count as nesting', async () => {
  const text = `{"a": "${'[{\\"'.repeat(MiB / 4)}", "b": [[1]]}`
  const parsed = (await parseJsonTurns(Buffer.from(text), 3)) as { b: number[][] }
  assert.equal(parsed.b, [[1]])
})

test('too deep, large or small: 400 naming the limit', async () => {
  const deep = `{"pad": "${' '.repeat(MiB)}", "x": ${'['.repeat(100)}${']'.repeat(100)}}`
  for (const f of [() => parseJsonTurns(Buffer.from(deep), 64), () => parseJson(Buffer.from('[[[[1]]]]'), 3)]) {
    const err = await refusal(f)
    assert.is(err.status, 400)
    assert.match(err.message, /nested deeper than (64|3) levels/)
  }
})

test('not JSON, large or small: 400 invalid_json', async () => {
  for (const text of [`{"a": "${'x'.repeat(2 * MiB)}"`, '{"a": ']) {
    const err = await refusal(() => parseJsonTurns(Buffer.from(text), 64))
    assert.is(err.status, 400)
    assert.match(err.message, /not valid JSON/)
  }
})

test.run()
