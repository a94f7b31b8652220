import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { sseData } from '../../../plugins/backend/sse-parser.js'

const test = suite('backend sse parser')
const enc = new TextEncoder()

async function parse(chunks: string[]): Promise<string[]> {
  async function* source() {
    for (const c of chunks) yield enc.encode(c)
  }
  const out: string[] = []
  for await (const d of sseData(source())) out.push(d)
  return out
}

test('several events in one chunk', async () => {
  assert.equal(await parse(['data: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\n']), ['{"a":1}', '{"b":2}', '[DONE]'])
})

test('an event split across chunks, even inside the line end', async () => {
  assert.equal(await parse(['data: {"a"', ':1}\n', '\ndata: x\n\n']), ['{"a":1}', 'x'])
})

test('CRLF line ends', async () => {
  assert.equal(await parse(['data: one\r\n\r\ndata: two\r\n\r\n']), ['one', 'two'])
})

test('multi-line data is joined with newlines; comments and other fields are skipped', async () => {
  assert.equal(await parse([': keep-alive\n\nevent: message\ndata: a\ndata: b\nid: 3\n\n']), ['a\nb'])
})

test('no space after the colon', async () => {
  assert.equal(await parse(['data:tight\n\n']), ['tight'])
})

test('a last event without its blank line is still read', async () => {
  assert.equal(await parse(['data: first\n\ndata: last']), ['first', 'last'])
})

test('multi-byte characters split between chunks', async () => {
  const bytes = enc.encode('data: héllo ✓\n\n')
  async function* source() {
    yield bytes.slice(0, 9)
    yield bytes.slice(9)
  }
  const out: string[] = []
  for await (const d of sseData(source())) out.push(d)
  assert.equal(out, ['héllo ✓'])
})

test.run()
