import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import crypto from 'node:crypto'
import { ByteSink } from '../../../protocols/http/byte-sink.js'

const test = suite('protocols/http: a large body gathered in one buffer')

const chunksOf = (bytes: Buffer, size: number) =>
  Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size))

test('the chunks held so far and those after, in order, with or without a declared length', () => {
  const body = crypto.randomBytes(3 * 1024 * 1024 + 17)
  for (const declared of [body.length, undefined, 1024]) {
    const chunks = chunksOf(body, 65_536)
    const sink = new ByteSink(declared, chunks.slice(0, 16))
    for (const c of chunks.slice(16)) sink.push(c)
    assert.is(sink.length, body.length)
    assert.ok(sink.bytes().equals(body), `declared ${declared}`)
  }
})

test('a declared length past 256 MiB is not taken at its word', () => {
  const sink = new ByteSink(2 ** 40, [Buffer.from('ab')])
  sink.push(Buffer.from('c'))
  assert.is(sink.bytes().toString(), 'abc')
})

test.run()
