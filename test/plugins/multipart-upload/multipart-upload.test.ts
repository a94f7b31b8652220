import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import multipartUpload from '../../../plugins/multipart-upload/index.js'
import { boundaryOf, parseMultipart } from '../../../plugins/multipart-upload/multipart-parser.js'
import { runPlugin } from '../../harness.js'

const test = suite('plugin multipart-upload')

const B = 'XyZ'
function form(parts: { name: string; filename?: string; type?: string; data: string | Buffer }[]): Buffer {
  const chunks: Buffer[] = [Buffer.from('preamble is ignored\r\n')]
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`
    chunks.push(Buffer.from(`--${B}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`))
    chunks.push(typeof p.data === 'string' ? Buffer.from(p.data) : p.data)
    chunks.push(Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${B}--\r\n`))
  return Buffer.concat(chunks)
}
const headers = { 'content-type': `multipart/form-data; boundary=${B}` }

test('boundaryOf: plain and quoted; not multipart → undefined', () => {
  assert.is(boundaryOf('multipart/form-data; boundary=abc'), 'abc')
  assert.is(boundaryOf('Multipart/Form-Data; charset=utf-8; boundary="a b;c"'), 'a b;c')
  assert.is(boundaryOf('application/json'), undefined)
  assert.is(boundaryOf(undefined), undefined)
})

test('the parser keeps binary data intact, including CRLF and dashes inside it', () => {
  const binary = Buffer.from([0, 13, 10, 45, 45, 88, 255, 13, 10])
  const parts = parseMultipart(form([{ name: 'file', filename: 'x.wav', type: 'audio/wav', data: binary }, { name: 'model', data: 'sim-whisper' }]), B)
  assert.is(parts.length, 2)
  assert.ok(parts[0]!.data.equals(binary))
  assert.equal([parts[0]!.filename, parts[0]!.contentType, parts[1]!.name, parts[1]!.data.toString()], ['x.wav', 'audio/wav', 'model', 'sim-whisper'])
  assert.throws(() => parseMultipart(Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\nno end`), B), /ends before its closing boundary/)
})

test('fields become the body (model reads it next); the file goes to ex.state.upload; repeated names are lists', async () => {
  const body = form([
    { name: 'model', data: 'sim-whisper' },
    { name: 'timestamp_granularities[]', data: 'segment' },
    { name: 'timestamp_granularities[]', data: 'word' },
    { name: 'file', filename: 'a.wav', type: 'audio/wav', data: 'RIFF' },
  ])
  const run = await runPlugin(multipartUpload, {}, { incoming: body, headers })
  assert.is(run.error, undefined)
  assert.ok(run.nextCalled)
  assert.equal(run.ex.body, { model: 'sim-whisper', 'timestamp_granularities[]': ['segment', 'word'] })
  assert.equal([run.ex.state.upload?.file.filename, run.ex.state.upload?.file.data.toString()], ['a.wav', 'RIFF'])
})

test('a file over max_file_bytes → 413 "request body too large"; a body over the limit is refused by the reader', async () => {
  const over = await runPlugin(multipartUpload, { max_file_bytes: 10 }, { incoming: form([{ name: 'file', filename: 'a', data: Buffer.alloc(11) }]), headers })
  assert.equal([over.error?.status, over.error?.message], [413, 'request body too large'])
  assert.not.ok(over.nextCalled)
  const exact = await runPlugin(multipartUpload, { max_file_bytes: 10 }, { incoming: form([{ name: 'file', filename: 'a', data: Buffer.alloc(10) }]), headers })
  assert.is(exact.error, undefined)
  // The body limit is max_file_bytes plus the allowance: past it the body is not even read.
  const body = await runPlugin(multipartUpload, { max_file_bytes: 10, form_allowance_bytes: 0 }, { incoming: form([{ name: 'file', filename: 'a', data: Buffer.alloc(5) }]), headers })
  assert.equal([body.error?.status, body.error?.message], [413, 'request body too large'])
})

test('400s: not multipart, no file, an empty file, a malformed body', async () => {
  const cases: [Buffer | string, Record<string, string>, string][] = [
    ['{"model":"x"}', { 'content-type': 'application/json' }, 'the request must be multipart/form-data with a file field'],
    [form([{ name: 'model', data: 'x' }]), headers, 'file is required'],
    [form([{ name: 'file', filename: 'a', data: '' }]), headers, 'file is empty'],
    [`--${B}\r\nno headers end`, headers, 'invalid multipart body: a multipart part has no end of headers'],
  ]
  for (const [incoming, h, message] of cases) {
    const run = await runPlugin(multipartUpload, {}, { incoming, headers: h })
    assert.equal([run.error?.status, run.error?.message], [400, message])
  }
})

test.run()
