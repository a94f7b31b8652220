import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import multipartUpload from '../../../plugins/multipart-upload/index.js'
import { isFormData, parseForm } from '../../../plugins/multipart-upload/multipart-parser.js'
import { runPlugin } from '../../../bin/testing/harness.js'

const test = suite('plugin multipart-upload')

const B = 'XyZ'
function formBody(parts: { name: string; filename?: string; type?: string; data: string | Buffer }[]): Buffer {
  const chunks: Buffer[] = [Buffer.from('preamble is ignored\r\n')]
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`
    chunks.push(
      Buffer.from(
        `--${B}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`,
      ),
    )
    chunks.push(typeof p.data === 'string' ? Buffer.from(p.data) : p.data)
    chunks.push(Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${B}--\r\n`))
  return Buffer.concat(chunks)
}
const headers = { 'content-type': `multipart/form-data; boundary=${B}` }

test('isFormData: multipart/form-data with a boundary, plain or quoted; anything else is not', () => {
  assert.ok(isFormData('multipart/form-data; boundary=abc'))
  assert.ok(isFormData('Multipart/Form-Data; charset=utf-8; boundary="a b;c"'))
  assert.not.ok(isFormData('multipart/form-data'))
  assert.not.ok(isFormData('multipart/mixed; boundary=abc'))
  assert.not.ok(isFormData('application/json'))
  assert.not.ok(isFormData(undefined))
})

const roomy = { fields: 100, fieldBytes: 65536, files: 4, fileBytes: 1024, parts: 128 }

test('the parser keeps binary data intact, including CRLF and dashes inside it; a cut body is malformed', async () => {
  const binary = Buffer.from([0, 13, 10, 45, 45, 88, 255, 13, 10])
  const form = await parseForm(
    formBody([
      { name: 'file', filename: 'x.wav', type: 'audio/wav', data: binary },
      { name: 'model', data: 'sim-whisper' },
    ]),
    headers['content-type'],
    'file',
    roomy,
  )
  assert.is(form.files.length, 1)
  assert.ok(form.files[0]!.data.equals(binary))
  assert.equal(
    [form.files[0]!.filename, form.files[0]!.contentType, form.fields],
    ['x.wav', 'audio/wav', [['model', 'sim-whisper']]],
  )
  try {
    await parseForm(
      Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\nno end`),
      headers['content-type'],
      'file',
      roomy,
    )
    assert.unreachable()
  } catch (err) {
    assert.match((err as Error).message, /Unexpected end of form/)
  }
})

test('fields become the body (model reads it next); the file goes to ex.state.upload; repeated names are lists', async () => {
  const body = formBody([
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
  const over = await runPlugin(
    multipartUpload,
    { max_file_bytes: 10 },
    { incoming: formBody([{ name: 'file', filename: 'a', data: Buffer.alloc(11) }]), headers },
  )
  assert.equal([over.error?.status, over.error?.message], [413, 'request body too large'])
  assert.not.ok(over.nextCalled)
  const exact = await runPlugin(
    multipartUpload,
    { max_file_bytes: 10 },
    { incoming: formBody([{ name: 'file', filename: 'a', data: Buffer.alloc(10) }]), headers },
  )
  assert.is(exact.error, undefined)
  // The body limit is max_file_bytes plus the allowance: past it the body is not even read.
  const body = await runPlugin(
    multipartUpload,
    { max_file_bytes: 10, form_allowance_bytes: 0 },
    { incoming: formBody([{ name: 'file', filename: 'a', data: Buffer.alloc(5) }]), headers },
  )
  assert.equal([body.error?.status, body.error?.message], [413, 'request body too large'])
})

test('400s: not multipart, no file, an empty file, a malformed body', async () => {
  const cases: [Buffer | string, Record<string, string>, string][] = [
    [
      '{"model":"x"}',
      { 'content-type': 'application/json' },
      'the request must be multipart/form-data with a file field',
    ],
    [formBody([{ name: 'model', data: 'x' }]), headers, 'file is required'],
    [formBody([{ name: 'file', filename: 'a', data: '' }]), headers, 'file is empty'],
    [`--${B}\r\nno headers end`, headers, 'invalid multipart body: Malformed part header'],
    [
      `--${B}\r\nContent-Disposition: form-data; name="model"\r\n\r\nx\r\n`,
      headers,
      'invalid multipart body: Unexpected end of form',
    ],
  ]
  for (const [incoming, h, message] of cases) {
    const run = await runPlugin(multipartUpload, {}, { incoming, headers: h })
    assert.equal([run.error?.status, run.error?.message], [400, message])
  }
})

test('limits: too many fields, a field too long, too many files or parts → 413 naming the limit; nothing reaches the next step', async () => {
  const file = { name: 'file', filename: 'a.wav', data: 'RIFF' }
  const many = (n: number, name = 'x') => Array.from({ length: n }, () => ({ name, data: 'v' }))
  const cases: [Record<string, number>, Buffer, string][] = [
    [{ max_fields: 3 }, formBody([...many(4), file]), 'too many form fields (at most 3)'],
    [
      { max_field_bytes: 4 },
      formBody([{ name: 'prompt', data: 'hello' }, file]),
      'form field prompt is longer than 4 bytes',
    ],
    [
      { max_files: 1 },
      formBody([{ name: 'other', filename: 'b', data: 'x' }, file]),
      'too many files in the form (at most 1)',
    ],
    [{ max_parts: 3, max_fields: 10 }, formBody([...many(3), file]), 'too many parts in the form (at most 3)'],
  ]
  for (const [options, incoming, message] of cases) {
    const run = await runPlugin(multipartUpload, options, { incoming, headers })
    assert.equal([run.error?.status, run.error?.message], [413, message], message)
    assert.not.ok(run.nextCalled)
  }
  // Exactly at each limit is fine.
  const exact = await runPlugin(
    multipartUpload,
    { max_fields: 3, max_field_bytes: 5, max_files: 2, max_parts: 5 },
    {
      incoming: formBody([
        ...many(2),
        { name: 'prompt', data: 'hello' },
        { name: 'other', filename: 'b', data: 'x' },
        file,
      ]),
      headers,
    },
  )
  assert.is(exact.error, undefined)
  assert.equal(exact.ex.body, { x: ['v', 'v'], prompt: 'hello' })
})

test('50,000 fields of one name parse (the hand parser was quadratic; busboy is linear: a benchmark figure, not asserted here), and a field named __proto__ stays a field', async () => {
  const fields = Array.from({ length: 50_000 }, (_, i) => ({ name: 'timestamp_granularities[]', data: String(i) }))
  const incoming = formBody([
    ...fields,
    { name: '__proto__', data: 'p' },
    { name: 'file', filename: 'a.wav', data: 'RIFF' },
  ])
  const run = await runPlugin(multipartUpload, { max_fields: 60_000, max_parts: 60_000 }, { incoming, headers })
  assert.is(run.error, undefined)
  const body = run.ex.body as Record<string, unknown>
  assert.is((body['timestamp_granularities[]'] as string[]).length, 50_000)
  assert.is(Object.getOwnPropertyDescriptor(body, '__proto__')?.value, 'p')
  assert.is(Object.getPrototypeOf(body), Object.prototype)
  // With the default limits the same form is refused at the 101st field.
  const refused = await runPlugin(multipartUpload, {}, { incoming, headers })
  assert.equal([refused.error?.status, refused.error?.message], [413, 'too many form fields (at most 100)'])
})

test('file_fields: every file of those fields, in order, with its field; a file in another field is refused by name', async () => {
  const body = formBody([
    { name: 'session_id', data: 's1' },
    { name: 'images', filename: 'a.png', type: 'image/png', data: 'PNG' },
    { name: 'docs', filename: 'b.md', type: 'text/markdown', data: '# B' },
    { name: 'images', filename: 'c.gif', type: 'image/gif', data: 'GIF' },
  ])
  const options = { file_fields: ['images', 'docs', 'audios'], max_files: 8 }
  const run = await runPlugin(multipartUpload, options, { incoming: body, headers })
  assert.is(run.error, undefined)
  assert.equal(run.ex.body, { session_id: 's1' })
  assert.equal(
    run.ex.state.upload?.files?.map((f) => [f.field, f.filename, f.data.toString()]),
    [
      ['images', 'a.png', 'PNG'],
      ['docs', 'b.md', '# B'],
      ['images', 'c.gif', 'GIF'],
    ],
  )
  assert.is(run.ex.state.upload?.file.filename, 'c.gif')
  const stray = await runPlugin(multipartUpload, options, {
    incoming: formBody([
      { name: 'videos', filename: 'v.mp4', data: 'x' },
      { name: 'docs', filename: 'b.md', data: 'B' },
    ]),
    headers,
  })
  assert.is(stray.error?.status, 400)
  assert.is(stray.error?.message, 'file v.mp4 is in field videos, which is not one of images, docs, audios')
  const none = await runPlugin(multipartUpload, options, {
    incoming: formBody([{ name: 'session_id', data: 's1' }]),
    headers,
  })
  assert.is(none.error?.status, 400)
  assert.is(none.error?.message, 'a file is required in one of images, docs, audios')
})

test.run()
