/**
 * The five response formats, rendered from a transcript by the gateway itself, so a client gets
 * srt and vtt even from a server that only sends JSON (vLLM). Shapes as OpenAI's
 * (reference/backends.md §5): srt cues numbered from 1 with `,` before milliseconds, vtt with a
 * `WEBVTT` line and `.` before milliseconds.
 */
import { segmentsOf, type Transcript } from './transcript.js'

export type TranscriptFormat = 'json' | 'text' | 'srt' | 'vtt' | 'verbose_json'

export interface Rendered {
  readonly kind: 'json' | 'text'
  readonly contentType: string
  readonly body: unknown
}

/** 3.32 → "00:00:03,320" (srt) or "00:00:03.320" (vtt). */
export function timestamp(seconds: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000))
  const h = Math.floor(ms / 3_600_000)
  const m = Math.floor((ms % 3_600_000) / 60_000)
  const s = Math.floor((ms % 60_000) / 1000)
  const pad = (n: number, w = 2) => String(n).padStart(w, '0')
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms % 1000, 3)}`
}

export function renderSrt(t: Transcript): string {
  return segmentsOf(t)
    .map((s, i) => `${i + 1}\n${timestamp(s.start, ',')} --> ${timestamp(s.end, ',')}\n${s.text.trim()}\n\n`)
    .join('')
}

export function renderVtt(t: Transcript): string {
  return (
    'WEBVTT\n\n' +
    segmentsOf(t)
      .map((s) => `${timestamp(s.start, '.')} --> ${timestamp(s.end, '.')}\n${s.text.trim()}\n\n`)
      .join('')
  )
}

export function render(t: Transcript, format: TranscriptFormat): Rendered {
  switch (format) {
    case 'text':
      return { kind: 'text', contentType: 'text/plain; charset=utf-8', body: t.text }
    case 'srt':
      return { kind: 'text', contentType: 'text/plain; charset=utf-8', body: renderSrt(t) }
    case 'vtt':
      return { kind: 'text', contentType: 'text/vtt; charset=utf-8', body: renderVtt(t) }
    case 'json':
      return {
        kind: 'json',
        contentType: 'application/json',
        body: t.usage === undefined ? { text: t.text } : { text: t.text, usage: t.usage },
      }
    case 'verbose_json': {
      const body: Record<string, unknown> = {
        task: t.task,
        language: t.language ?? 'unknown',
        duration: t.duration ?? segmentsOf(t).at(-1)!.end,
        text: t.text,
        segments: segmentsOf(t),
      }
      if (t.words) body.words = t.words
      if (t.usage !== undefined) body.usage = t.usage
      return { kind: 'json', contentType: 'application/json', body }
    }
  }
}
