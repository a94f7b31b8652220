/**
 * POST /v1/audio/transcriptions and /v1/audio/translations: a Whisper-like server. It cannot
 * hear, so the words are made up, but everything timed comes from the recording actually
 * sent: its duration (read from the file), and segments of `segment_seconds` that cover it.
 * The shape follows the model's server: vLLM (duration as a string, language as a code, no srt
 * or vtt) or an OpenAI-like one (speaches, whisper.cpp: all five formats).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import { sleep } from './active-requests.js'
import { SimError } from './api-error.js'
import { audioInfo } from './audio-duration.js'
import { sendJson, sendText } from './http-io.js'
import { planFailure } from './failures.js'
import { parseForm } from './multipart-form.js'
import { textPromptTokens } from './prompt.js'
import { requireKind, type SimContext } from './sim-context.js'
import { renderTranscript, transcriptSegments, type TranscriptFormat } from './transcript-render.js'

export type TranscriptionTask = 'transcribe' | 'translate'

const languageNames: Record<string, string> = {
  en: 'english',
  fr: 'french',
  de: 'german',
  es: 'spanish',
  it: 'italian',
  ja: 'japanese',
  zh: 'chinese',
  ko: 'korean',
  pt: 'portuguese',
  ru: 'russian',
}

function quoted(formats: readonly string[]): string {
  const q = formats.map((f) => `\`${f}\``)
  return q.length > 1 ? `${q.slice(0, -1).join(', ')} or ${q.at(-1)}` : (q[0] ?? '')
}

export function transcriptionHandler(task: TranscriptionTask) {
  return async (
    sim: SimContext,
    req: IncomingMessage,
    res: ServerResponse,
    raw: Buffer,
    arrival: number,
  ): Promise<void> => {
    const form = await parseForm(req.headers['content-type'], raw)
    const field = (name: string) => form.fields.get(name)?.at(-1)
    const modelName = field('model')
    if (!modelName) throw new SimError(400, 'model: Field required', 'model')
    const failure = planFailure(req.headers, sim.settings.failure, sim.random, modelName)
    if (failure.error) throw failure.error
    const engine = sim.engine(modelName)
    requireKind(engine, 'transcription', task === 'translate' ? 'Translations' : 'Transcriptions')
    const audio = engine.model.audio
    if (task === 'translate' && !audio.translation)
      throw new SimError(400, 'The model does not support Translations API')
    const format = (field('response_format') ?? 'json') as TranscriptFormat
    if (!(audio.transcript_formats as string[]).includes(format))
      throw new SimError(
        400,
        `Currently only support response_format ${quoted(audio.transcript_formats)}`,
        'response_format',
      )
    if (!form.file) throw new SimError(400, 'file: Field required', 'file')
    const info = audioInfo(form.file.data)
    const code = task === 'translate' ? 'en' : (field('language')?.toLowerCase() ?? 'en')
    const language = audio.language_style === 'name' ? (languageNames[code] ?? code) : code
    const segments = transcriptSegments(info.seconds, audio.segment_seconds, task, field('prompt'))
    const reply = renderTranscript(format, {
      task,
      language,
      duration: audio.duration_type === 'string' ? info.seconds.toFixed(2) : Math.round(info.seconds * 100) / 100,
      segments,
      usage: { type: 'duration', seconds: Math.ceil(info.seconds) },
    })
    const send = () =>
      reply.kind === 'json' ? sendJson(res, 200, reply.body) : sendText(res, 200, reply.contentType, reply.body)
    const admission = engine.scheduler.admit()
    const prompt = [textPromptTokens(field('prompt') ?? '')]
    const outputTokens = segments.reduce((n, s) => n + Math.ceil(Buffer.byteLength(s.text) / 4), 0)
    const rtfHeader = Number(req.headers['x-sim-realtime-factor'])
    const rtf =
      req.headers['x-sim-realtime-factor'] !== undefined && Number.isFinite(rtfHeader) && rtfHeader >= 0
        ? rtfHeader
        : audio.realtime_factor
    const workMs = failure.stallMs + (rtf > 0 ? (info.seconds * 1000) / rtf : 0)
    if (admission.kind === 'running' && workMs === 0) {
      const ticket = engine.startRun(prompt, outputTokens, 0)
      send()
      const e2e = (performance.now() - arrival) / 1000
      engine.endRun(ticket, {
        finishedReason: 'stop',
        completionTokens: outputTokens,
        ttftSeconds: e2e,
        e2eSeconds: e2e,
      })
      return
    }
    const life = sim.active.open(res)
    try {
      if (admission.kind === 'waiting') {
        const leave = () => admission.cancel()
        life.signal.addEventListener('abort', leave, { once: true })
        const started = await admission.turn
        life.signal.removeEventListener('abort', leave)
        if (!started) return
      }
      const ticket = engine.startRun(prompt, outputTokens, (performance.now() - arrival) / 1000)
      const done = await sleep(workMs, life.signal)
      if (done) send()
      const e2e = (performance.now() - arrival) / 1000
      engine.endRun(ticket, {
        finishedReason: done ? 'stop' : 'abort',
        completionTokens: done ? outputTokens : 0,
        ttftSeconds: done ? e2e : undefined,
        e2eSeconds: e2e,
      })
    } finally {
      life.close()
    }
  }
}
