/**
 * transcription: POST /audio/transcriptions and /audio/translations. Sends the upload (read by
 * `multipart-upload`) to the transcription server of the resolved model and answers in the
 * response format asked for. Formats the server renders itself are asked of it (and JSON is
 * normalized: `duration` a number, languages by name); the others (srt and vtt from vLLM, say)
 * are rendered by the gateway from the server's verbose_json segments.
 */
import { GatewayError, definePlugin, reply, type UpstreamCall } from '../../kernel/contract/index.js'
import type { ModelConfig } from '../../schemas/models.schema.js'
import { configSchema } from './schema.js'
import { transcriptionSettings } from './transcription-settings.js'
import { requestTranscript, transcriptCall } from './transcription-upstream.js'
import { languageName, readTranscript } from './transcript.js'
import { render, type TranscriptFormat } from './subtitle-render.js'
import { transcriptionDemand, transcriptionReport } from './transcription-usage.js'

declare module '../../kernel/contract/index.js' {
  interface ExchangeState {
    transcription?: {
      modelId: string
      task: 'transcribe' | 'translate'
      format: TranscriptFormat
      /** What the server was asked for (differs when the gateway renders the format). */
      upstreamFormat: TranscriptFormat
      /** Seconds of audio, when the server said. */
      duration?: number
    }
  }
}

const FORMATS: readonly TranscriptFormat[] = ['json', 'text', 'srt', 'vtt', 'verbose_json']

function bad(message: string): GatewayError {
  return new GatewayError(400, message, { code: 'invalid_request' })
}

function single(fields: Record<string, string | string[]>, name: string): string | undefined {
  const v = fields[name]
  return Array.isArray(v) ? v.at(-1) : v
}

/** OpenAI's newer transcription usage: `{type: "duration", seconds}`. */
function reportedSeconds(usage: unknown): number | undefined {
  const u = usage as { type?: unknown; seconds?: unknown } | undefined
  return u?.type === 'duration' && typeof u.seconds === 'number' ? u.seconds : undefined
}

export default definePlugin({
  name: 'transcription',
  config: configSchema,
  requires: ['model', 'upload'],
  reachesModel: { demand: (ex) => transcriptionDemand(ex.state.upload?.file.data.length ?? 0) },
  setup(config, kernel) {
    const task = config.task
    return {
      async request(ex, next) {
        const { model, requested } = ex.state.model
        const upload = ex.state.upload
        if (model.model_type !== 'audio_transcription') throw bad(`model ${requested} is not a transcription model`)
        const settings = transcriptionSettings(model)
        if (task === 'translate' && !settings.translation)
          throw bad(`model ${requested} does not translate; use a model with translation`)
        const asked = single(upload.fields, 'response_format') ?? 'json'
        if (!FORMATS.includes(asked as TranscriptFormat))
          throw bad(`response_format ${asked} is not one of ${FORMATS.join(', ')}`)
        const format = asked as TranscriptFormat
        const fieldsFor = (m: ModelConfig, formats: ReadonlySet<string>) => {
          // Ask for verbose_json when the server has it: it says the audio's duration, which is what
          // the request is metered by, and every format renders from it. Else the format itself, or JSON.
          const upstreamFormat: TranscriptFormat = formats.has('verbose_json')
            ? 'verbose_json'
            : formats.has(format)
              ? format
              : 'json'
          const fields: Record<string, string | string[]> = {
            ...upload.fields,
            model: m.served_name ?? m.id,
            response_format: upstreamFormat,
          }
          // Streamed transcripts differ per server (vLLM's chat-like chunks, OpenAI's events): not offered.
          delete fields.stream
          return { fields, upstreamFormat }
        }
        const first = fieldsFor(model, settings.formats)
        const state = { modelId: model.id, task, format, upstreamFormat: first.upstreamFormat }
        ex.state.transcription = state
        // A fallback is asked in its own formats; one that cannot translate is skipped.
        const refit = model.fallbacks?.length
          ? (other: ModelConfig): UpstreamCall | undefined => {
              const os = transcriptionSettings(other)
              if (task === 'translate' && !os.translation) return undefined
              const shaped = fieldsFor(other, os.formats)
              Object.assign(state, { modelId: other.id, upstreamFormat: shaped.upstreamFormat })
              return transcriptCall(other, task, { file: upload.file, fields: shaped.fields })
            }
          : undefined
        const answer = await requestTranscript(
          kernel,
          ex,
          transcriptCall(model, task, { file: upload.file, fields: first.fields }),
          refit,
        )
        const upstreamFormat = state.upstreamFormat
        ex.usage.firstTokenAt = kernel.now()

        if (upstreamFormat === 'text' || upstreamFormat === 'srt' || upstreamFormat === 'vtt') {
          // No duration from the server: the upload's estimate stands.
          ex.usage.report(transcriptionReport(ex.usage.demand().audioSeconds ?? 0, answer.text))
          ex.reply = reply.text(
            upstreamFormat === 'vtt' ? 'text/vtt; charset=utf-8' : 'text/plain; charset=utf-8',
            answer.text,
          )
          return next()
        }
        let parsed: unknown
        try {
          parsed = JSON.parse(answer.text)
        } catch (err) {
          throw new GatewayError(502, 'upstream request failed', { code: 'upstream_failed', cause: err })
        }
        const transcript = readTranscript(parsed, task)
        if (!transcript)
          throw new GatewayError(502, 'upstream request failed', {
            code: 'upstream_failed',
            cause: new Error('transcript without text'),
          })
        const language = single(upload.fields, 'language')
        if (transcript.language === undefined && language) transcript.language = languageName(language)
        ex.state.transcription.duration = transcript.duration
        ex.usage.report(
          transcriptionReport(
            transcript.duration ?? reportedSeconds(transcript.usage) ?? ex.usage.demand().audioSeconds ?? 0,
            transcript.text,
          ),
        )
        const out = render(transcript, format)
        ex.reply = out.kind === 'json' ? reply.json(out.body) : reply.text(out.contentType, out.body as string)
        await next()
      },
    }
  },
})
