/**
 * The transcript a simulated Whisper server returns: made-up sentences over segments that
 * cover the real length of the recording, rendered in the five response formats of OpenAI's
 * API (reference/backends.md §5).
 */
export type TranscriptFormat = 'json' | 'text' | 'srt' | 'vtt' | 'verbose_json'

export interface SimSegment {
  id: number
  seek: number
  start: number
  end: number
  text: string
  tokens: number[]
  temperature: number
  avg_logprob: number
  compression_ratio: number
  no_speech_prob: number
}

const sentences = [
  'The simulator heard this part of the recording.',
  'It cannot understand speech, so these words are its own.',
  'The timing of each segment follows the audio that was sent.',
  'A real model would write what was said here.',
]

/**
 * At most this many segments, whatever the duration and `segment_seconds`: past it segments grow
 * longer instead, so a transcript's size is bounded (48 hours at the default 5 s is 34,560).
 */
export const maxSegments = 50_000

/**
 * Segments of `segmentSeconds` over `duration`. With a prompt, the first segment starts with the
 * prompt's last word, as Whisper continues the style of its prompt: a client can see it arrived.
 */
export function transcriptSegments(
  duration: number,
  wantedSeconds: number,
  task: 'transcribe' | 'translate',
  prompt: string | undefined,
): SimSegment[] {
  const segmentSeconds = Math.max(wantedSeconds, duration / maxSegments)
  const count = Math.min(maxSegments, Math.max(1, Math.ceil(duration / segmentSeconds - 1e-9)))
  const lead = prompt?.trim().split(/\s+/).at(-1)
  const segments: SimSegment[] = []
  for (let i = 0; i < count; i++) {
    const start = Math.round(i * segmentSeconds * 100) / 100
    const end = Math.round(Math.min(duration, (i + 1) * segmentSeconds) * 100) / 100
    let text = sentences[i % sentences.length]!
    if (task === 'translate') text = `(English) ${text}`
    if (i === 0 && lead) text = `${lead} ${text}`
    segments.push({
      id: i,
      seek: Math.floor(start * 100),
      start,
      end,
      text: ` ${text}`,
      tokens: [],
      temperature: 0,
      avg_logprob: -0.25,
      compression_ratio: 1.2,
      no_speech_prob: 0.01,
    })
  }
  return segments
}

export interface TranscriptBody {
  task: 'transcribe' | 'translate'
  language: string
  duration: number | string
  segments: SimSegment[]
  usage: { type: 'duration'; seconds: number }
}

function stamp(seconds: number, separator: string): string {
  const ms = Math.round(seconds * 1000)
  const pad = (n: number, w = 2) => String(n).padStart(w, '0')
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`
}

export function renderTranscript(
  format: TranscriptFormat,
  t: TranscriptBody,
): { kind: 'json'; body: unknown } | { kind: 'text'; contentType: string; body: string } {
  const text = t.segments
    .map((s) => s.text)
    .join('')
    .trim()
  switch (format) {
    case 'json':
      return { kind: 'json', body: { text, usage: t.usage } }
    case 'verbose_json':
      return {
        kind: 'json',
        body: { task: t.task, language: t.language, duration: t.duration, text, segments: t.segments, usage: t.usage },
      }
    case 'text':
      return { kind: 'text', contentType: 'text/plain; charset=utf-8', body: `${text}\n` }
    case 'srt':
      return {
        kind: 'text',
        contentType: 'text/plain; charset=utf-8',
        body: t.segments
          .map((s, i) => `${i + 1}\n${stamp(s.start, ',')} --> ${stamp(s.end, ',')}\n${s.text.trim()}\n\n`)
          .join(''),
      }
    case 'vtt':
      return {
        kind: 'text',
        contentType: 'text/vtt; charset=utf-8',
        body:
          'WEBVTT\n\n' +
          t.segments.map((s) => `${stamp(s.start, '.')} --> ${stamp(s.end, '.')}\n${s.text.trim()}\n\n`).join(''),
      }
  }
}
