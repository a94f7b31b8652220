import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { parseForm } from '../../sim/multipart-form.js'
import { SimError } from '../../sim/api-error.js'

const test = suite("sim: multipart forms, parsed within Starlette's limits")

const B = 'b0undary'
const type = `multipart/form-data; boundary=${B}`
function body(parts: { name: string; filename?: string; data: string | Buffer }[]): Buffer {
  const chunks: Buffer[] = []
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`
    chunks.push(
      Buffer.from(`--${B}\r\nContent-Disposition: ${disposition}\r\n\r\n`),
      Buffer.from(p.data),
      Buffer.from('\r\n'),
    )
  }
  chunks.push(Buffer.from(`--${B}--\r\n`))
  return Buffer.concat(chunks)
}

async function refusal(p: Promise<unknown>): Promise<SimError> {
  try {
    await p
  } catch (err) {
    assert.instance(err, SimError)
    return err as SimError
  }
  throw new Error('expected a refusal')
}

test('fields (repeated names as lists) and the file, its bytes intact', async () => {
  const binary = Buffer.from([0, 13, 10, 45, 45, 255])
  const form = await parseForm(
    type,
    body([
      { name: 'model', data: 'whisper' },
      { name: 'g', data: 'a' },
      { name: 'g', data: 'b' },
      { name: 'file', filename: 'a.wav', data: binary },
    ]),
  )
  assert.equal(
    [...form.fields],
    [
      ['model', ['whisper']],
      ['g', ['a', 'b']],
    ],
  )
  assert.is(form.file?.filename, 'a.wav')
  assert.ok(form.file?.data.equals(binary))
})

test("1,000 fields are fine; 50,000 answer Starlette's 400; a field over 1 MiB too; malformed → 400", async () => {
  const many = (n: number) => Array.from({ length: n }, () => ({ name: 'g', data: 'x' }))
  assert.is((await parseForm(type, body(many(1000)))).fields.get('g')?.length, 1000)
  const tooMany = await refusal(parseForm(type, body(many(50_000))))
  assert.equal([tooMany.status, tooMany.message], [400, 'Too many fields. Maximum number of fields is 1000.'])
  const long = await refusal(parseForm(type, body([{ name: 'prompt', data: Buffer.alloc(1024 * 1024 + 1, 97) }])))
  assert.equal([long.status, long.message], [400, 'Part exceeded maximum size of 1024KB.'])
  assert.is((await refusal(parseForm('application/json', Buffer.from('{}')))).status, 400)
  const cut = await refusal(
    parseForm(type, Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\nno end`)),
  )
  assert.equal([cut.status, cut.message], [400, 'Malformed multipart body: Unexpected end of form.'])
})

test.run()
