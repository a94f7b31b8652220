/**
 * One shape for a transcript, whatever the server sent. Servers differ: vLLM sends
 * `duration` as a string ("17.65") where OpenAI sends a number; some send ISO language codes
 * where OpenAI sends names; some send only `{text}`. The gateway reads any of them into this
 * shape and renders every format from it.
 */

export interface Segment {
  id: number
  start: number
  end: number
  text: string
  [extra: string]: unknown
}

export interface Transcript {
  task: 'transcribe' | 'translate'
  text: string
  language?: string
  duration?: number
  segments?: Segment[]
  words?: unknown[]
  usage?: unknown
}

/** Whisper reports languages by name; ISO 639-1 codes of the common ones are turned into names. */
const languageNames: Record<string, string> = {
  en: 'english',
  zh: 'chinese',
  de: 'german',
  es: 'spanish',
  ru: 'russian',
  ko: 'korean',
  fr: 'french',
  ja: 'japanese',
  pt: 'portuguese',
  tr: 'turkish',
  pl: 'polish',
  ca: 'catalan',
  nl: 'dutch',
  ar: 'arabic',
  sv: 'swedish',
  it: 'italian',
  id: 'indonesian',
  hi: 'hindi',
  fi: 'finnish',
  vi: 'vietnamese',
  he: 'hebrew',
  uk: 'ukrainian',
  el: 'greek',
  ms: 'malay',
  cs: 'czech',
  ro: 'romanian',
  da: 'danish',
  hu: 'hungarian',
  ta: 'tamil',
  no: 'norwegian',
  th: 'thai',
  ur: 'urdu',
  hr: 'croatian',
  bg: 'bulgarian',
  lt: 'lithuanian',
}

export function languageName(value: string): string {
  const lower = value.trim().toLowerCase()
  return languageNames[lower] ?? lower
}

function num(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value) : value
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined
}

/** Reads a server's json or verbose_json body; returns undefined when it holds no `text`. */
export function readTranscript(body: unknown, task: Transcript['task']): Transcript | undefined {
  if (!body || typeof body !== 'object') return undefined
  const b = body as Record<string, unknown>
  if (typeof b.text !== 'string') return undefined
  const t: Transcript = { task, text: b.text }
  if (typeof b.language === 'string' && b.language !== '') t.language = languageName(b.language)
  const duration = num(b.duration)
  if (duration !== undefined) t.duration = duration
  if (Array.isArray(b.segments)) {
    t.segments = b.segments
      .filter((s): s is Record<string, unknown> => !!s && typeof s === 'object')
      .map((s, i) => ({
        ...s,
        id: num(s.id) ?? i,
        start: num(s.start) ?? 0,
        end: num(s.end) ?? 0,
        text: typeof s.text === 'string' ? s.text : '',
      }))
  }
  if (Array.isArray(b.words)) t.words = b.words
  if (b.usage !== undefined) t.usage = b.usage
  // A translation is English whatever the source was.
  if (task === 'translate') t.language = 'english'
  return t
}

/** Segments to render; a server that gave none yields one segment over the whole recording. */
export function segmentsOf(t: Transcript): Segment[] {
  if (t.segments && t.segments.length > 0) return t.segments
  return [{ id: 0, start: 0, end: t.duration ?? 0, text: t.text }]
}
