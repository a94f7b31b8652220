/** json-upload in isolation: a base64 file in JSON becomes ex.state.upload, as multipart-upload leaves it. */
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import jsonUpload from '../../../plugins/json-upload/index.js'
import { runPlugin } from '../../../bin/testing/harness.js'

test('the file decoded, its form fields kept, the model left in the body for the model step', async () => {
  const data = Buffer.from('RIFF....WAVE')
  const body = {
    model: 'sim-whisper',
    file_base64: data.toString('base64'),
    filename: 'a.wav',
    content_type: 'audio/wav',
    language: 'en',
    response_format: 'json',
  }
  const run = await runPlugin(jsonUpload, {}, { body })
  assert.is(run.error, undefined)
  assert.ok(run.nextCalled)
  assert.ok(run.ex.state.upload?.file.data.equals(data))
  assert.equal([run.ex.state.upload?.file.filename, run.ex.state.upload?.file.contentType], ['a.wav', 'audio/wav'])
  assert.equal(run.ex.state.upload?.fields, { language: 'en', response_format: 'json' })
})

test('a file past max_file_bytes: 413 before it is decoded; nothing decodable: 400', async () => {
  const big = await runPlugin(
    jsonUpload,
    { max_file_bytes: 10 },
    { body: { model: 'm', file_base64: Buffer.alloc(30).toString('base64') } },
  )
  assert.is(big.error?.status, 413)
  assert.not.ok(big.nextCalled)
  const empty = await runPlugin(jsonUpload, {}, { body: { model: 'm', file_base64: '!!!!' } })
  assert.is(empty.error?.status, 400)
  assert.is(empty.error?.message, 'file_base64 is empty')
})

test.run()
