/**
 * What one speech request will do, decided before the server is called: the checks of the
 * spec (each refusal with its own message) and the request the server gets.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import type { SpeechFormat, SpeechRequest } from '../../schemas/speech-request.schema.js'
import type { SpeechSettings } from './speech-settings.js'
import { resolveVoice } from './voice-map.js'

export interface SpeechPlan {
  readonly format: SpeechFormat
  /** Server-sent events (`stream_format: sse` or `stream: true`). */
  readonly sse: boolean
  /**
   * `live`: audio goes out as the server makes it (a streaming server, pcm or wav).
   * `whole`: the whole audio is read first (a whole-file server, or a format encoded after completion).
   */
  readonly delivery: 'live' | 'whole'
  /** What is asked of the server: raw PCM (`pcm` or `wav` to strip), or a format it encodes itself. */
  readonly upstreamFormat: SpeechFormat
  /** The server's PCM is turned into `format` by the gateway (else its bytes pass through). */
  readonly fromPcm: boolean
  readonly upstreamBody: Record<string, unknown>
}

const STREAMABLE: ReadonlySet<SpeechFormat> = new Set(['pcm', 'wav'])

function bad(message: string): GatewayError {
  return new GatewayError(400, message, { code: 'invalid_request' })
}

function spell(language: string, style: 'lower' | 'title'): string {
  return style === 'title' ? language.charAt(0).toUpperCase() + language.slice(1) : language
}

export function planSpeech(body: SpeechRequest, settings: SpeechSettings, servedName: string): SpeechPlan {
  const format: SpeechFormat = body.response_format ?? 'mp3'
  const sse = body.stream_format === 'sse' || body.stream === true
  if (sse && !STREAMABLE.has(format)) throw bad('Streaming needs response_format pcm or wav')

  if (settings.maxInputChars !== undefined) {
    // Characters as a reader counts them: code points, not UTF-16 units.
    let chars = 0
    for (const _ of body.input) chars++
    if (chars > settings.maxInputChars)
      throw bad(
        `input is too long: ${chars} characters (maximum ${settings.maxInputChars} for model ${settings.modelId})`,
      )
  }

  if (body.speed !== undefined && body.speed !== 1 && !settings.speed)
    throw bad(
      `speed ${body.speed} is not supported by model ${settings.modelId}: it speaks only at speed 1.0 (leave speed out or send 1.0)`,
    )

  const voice = resolveVoice(settings, body.voice)

  let language: string | undefined
  if (body.language !== undefined) {
    const asked = body.language.toLowerCase()
    if (asked !== 'auto' && !settings.languages.includes(asked))
      throw bad(
        `language ${body.language} is not one of auto, ${settings.languages.join(', ')} for model ${settings.modelId}`,
      )
    language = spell(asked, settings.languageCase)
  }

  const native = settings.nativeFormats.has(format) && !STREAMABLE.has(format)
  const upstreamFormat: SpeechFormat = native ? format : settings.pcmFrom
  const delivery = settings.streaming && STREAMABLE.has(format) ? 'live' : 'whole'
  const upstreamBody: Record<string, unknown> = {
    model: servedName,
    input: body.input,
    voice,
    response_format: upstreamFormat,
  }
  // vllm-omni streams only when asked, and only PCM.
  if (settings.streaming && upstreamFormat === 'pcm') upstreamBody.stream = true
  if (body.speed !== undefined && settings.speed) upstreamBody.speed = body.speed
  if (language !== undefined) upstreamBody.language = language
  if (body.instructions !== undefined && settings.instructions === 'pass') upstreamBody.instructions = body.instructions
  return { format, sse, delivery, upstreamFormat, fromPcm: !native, upstreamBody }
}
