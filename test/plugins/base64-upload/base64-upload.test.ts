/**
 * base64-upload: a JSON body's `file_base64` becomes the upload the transcription step reads,
 * its text fields the form's; bad base64, a task the route does not do and a file too large are
 * refused before any model is reached.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import base64Upload from '../../../plugins/base64-upload/index.js'
import { runPlugin, setupPlugin } from '../../harness.js'

const test = suite('plugin base64-upload')
const audio = Buffer.from('RIFF....WAVEfmt fake audio bytes')

test('the file and the text fields, as multipart-upload leaves them', async () => {
  const r = await runPlugin(base64Upload, {}, { body: { model: 'sim-whisper', file_base64: audio.toString('base64'), filename: 'a.wav', language: 'de', temperature: 0.2, task: 'transcribe' } })
  assert.is(r.error, undefined)
  const upload = r.ex.state.upload!
  assert.ok(upload.file.data.equals(audio))
  assert.is(upload.file.filename, 'a.wav')
  assert.equal(upload.fields, { language: 'de', temperature: '0.2' })
})

test('a data URL names the content type', async () => {
  const r = await runPlugin(base64Upload, {}, { body: { model: 'm', file_base64: `data:audio/wav;base64,${audio.toString('base64')}` } })
  assert.is(r.ex.state.upload!.file.contentType, 'audio/wav')
  assert.is(r.ex.state.upload!.file.filename, 'audio')
})

test('refusals: not base64 (400), another task (400), too large (413); options checked at load', async () => {
  const bad = await runPlugin(base64Upload, {}, { body: { model: 'm', file_base64: 'abc$' } })
  assert.equal([bad.error?.status, bad.error?.message], [400, 'file_base64 is not valid base64'])
  const other = await runPlugin(base64Upload, { task: 'transcribe' }, { body: { model: 'm', file_base64: 'AAAA', task: 'translate' } })
  assert.equal([other.error?.status, other.error?.message], [400, 'this route does transcribe, not translate'])
  const large = await runPlugin(base64Upload, { max_file_bytes: 4 }, { body: { model: 'm', file_base64: Buffer.alloc(12).toString('base64') } })
  assert.is(large.error?.status, 413)
  assert.is(large.nextCalled, false)
  let refused = ''
  await setupPlugin(base64Upload, { task: 'summarize' }).catch((err: Error) => (refused = err.message))
  assert.match(refused, /bad options/)
})

test.run()
