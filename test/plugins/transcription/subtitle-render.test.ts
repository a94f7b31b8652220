import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { render, timestamp } from '../../../plugins/transcription/subtitle-render.js'
import { languageName, readTranscript } from '../../../plugins/transcription/transcript.js'

const test = suite('plugin transcription: transcript reading and rendering')

test("timestamps: hours, minutes, seconds and rounded milliseconds, with the format's separator", () => {
  assert.is(timestamp(3.32, ','), '00:00:03,320')
  assert.is(timestamp(3723.0004, '.'), '01:02:03.000')
  assert.is(timestamp(59.9996, ','), '00:01:00,000')
  assert.is(timestamp(-1, ','), '00:00:00,000')
})

test("servers' shapes read into one transcript", () => {
  const t = readTranscript(
    {
      text: 'x',
      duration: '17.65',
      language: 'DE',
      segments: [{ start: '1.5', end: 2, text: ' x' }],
      words: [{ word: 'x', start: 0, end: 1 }],
    },
    'transcribe',
  )!
  assert.equal(
    [t.duration, t.language, t.segments![0]!.start, t.segments![0]!.id, t.words?.length],
    [17.65, 'german', 1.5, 0, 1],
  )
  assert.is(readTranscript({ nope: true }, 'transcribe'), undefined)
  assert.is(languageName('english'), 'english')
  assert.is(languageName('xx'), 'xx')
})

test('json keeps usage when the server gave it; verbose_json carries words', () => {
  const t = readTranscript(
    { text: 'hi', duration: 2, usage: { type: 'duration', seconds: 2 }, words: [] },
    'transcribe',
  )!
  assert.equal(render(t, 'json').body, { text: 'hi', usage: { type: 'duration', seconds: 2 } })
  const v = render(t, 'verbose_json').body as Record<string, unknown>
  assert.equal(Object.keys(v), ['task', 'language', 'duration', 'text', 'segments', 'words', 'usage'])
  assert.is(v.language, 'unknown', 'never made up')
})

test.run()
