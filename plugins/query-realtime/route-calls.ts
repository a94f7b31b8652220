/**
 * The realtime route's calls of other gateway routes (kernel.call under the project's key, so
 * each is queued, budgeted and recorded): the transcription, the question's embedding for the
 * semantic cache, and the speech. Each returns what it used, priced by the model's prices.
 */
import {
  GatewayError,
  valueOf,
  type CallOptions,
  type CallResult,
  type Principal,
  type Reply,
} from '../../kernel/contract/index.js'
import type { ModelConfig } from '../../schemas/models.schema.js'
import type { InputAudio } from './input-audio.js'

export type RouteCall = (routeId: string, body: unknown, options?: CallOptions) => Promise<CallResult>
export interface CallContext {
  readonly call: RouteCall
  readonly options: { principal: Principal; signal: AbortSignal; parentId: string }
}

export interface Transcript {
  readonly text: string
  readonly language?: string
  readonly audioSeconds: number
  readonly cost: number
}

/** The error a route answered with, its status and message kept. */
function routeError(reply: Reply, what: string): GatewayError {
  const body = reply.kind === 'json' ? (reply.body as { error?: { message?: unknown } } | undefined) : undefined
  const message =
    typeof body?.error?.message === 'string'
      ? body.error.message
      : `the ${what} route answered with status ${reply.status}`
  return new GatewayError(reply.status === 200 ? 502 : reply.status, message, {
    code: reply.status >= 500 || reply.status === 200 ? 'upstream_failed' : 'invalid_request',
  })
}

export async function transcribe(
  c: CallContext,
  route: string,
  model: ModelConfig,
  audio: InputAudio,
): Promise<Transcript> {
  const body = {
    model: model.id,
    file_base64: audio.base64,
    filename: audio.filename,
    response_format: 'verbose_json',
    ...(audio.contentType ? { content_type: audio.contentType } : {}),
  }
  const result = await c.call(route, body, c.options)
  if (result.reply.status !== 200) throw routeError(result.reply, 'transcription')
  const t = (result.reply.kind === 'json' ? result.reply.body : undefined) as
    | { text?: unknown; language?: unknown }
    | undefined
  if (typeof t?.text !== 'string')
    throw new GatewayError(502, 'the transcription route sent no transcript', { code: 'upstream_failed' })
  const used = result.usage.used()
  return {
    text: t.text,
    ...(typeof t.language === 'string' ? { language: t.language } : {}),
    audioSeconds: used.audioSeconds ?? 0,
    cost: valueOf(model.prices, used),
  }
}

export interface Embedding {
  readonly vector: Float32Array
  readonly tokens: number
  readonly cost: number
}

export async function embedQuestion(
  c: CallContext,
  route: string,
  model: ModelConfig,
  text: string,
): Promise<Embedding> {
  const result = await c.call(route, { model: model.id, input: [text], encoding_format: 'float' }, c.options)
  const reply = result.reply
  const body = reply.kind === 'json' ? reply.body : reply.kind === 'text' ? safeParse(reply.text) : undefined
  if (reply.status !== 200) throw routeError(reply, 'embeddings')
  const vector = (body as { data?: { embedding?: unknown }[] } | undefined)?.data?.[0]?.embedding
  if (!Array.isArray(vector))
    throw new GatewayError(502, `embedding model ${model.id} answered without a float vector`, {
      code: 'upstream_failed',
    })
  const used = result.usage.used()
  return { vector: Float32Array.from(vector as number[]), tokens: used.inputTokens, cost: valueOf(model.prices, used) }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The speech route's format names for the realtime request's. */
const ROUTE_FORMAT = { pcm16: 'pcm', wav: 'wav', mp3: 'mp3' } as const
export type OutputFormat = keyof typeof ROUTE_FORMAT

export interface Speech {
  /** The audio as the route makes it (streamed formats in pieces; mp3 whole). */
  readonly chunks: AsyncIterable<Uint8Array>
  /** What the speech used, once `chunks` has been read to its end. */
  used(): { characters: number; cost: number }
}

export async function speak(
  c: CallContext,
  route: string,
  model: ModelConfig,
  text: string,
  format: OutputFormat,
  voice: string | undefined,
): Promise<Speech> {
  const body = { model: model.id, input: text, response_format: ROUTE_FORMAT[format], ...(voice ? { voice } : {}) }
  const result = await c.call(route, body, c.options)
  const reply = result.reply
  if (reply.kind !== 'bytes' || reply.status !== 200) throw routeError(reply, 'speech')
  const data = reply.data
  const chunks: AsyncIterable<Uint8Array> =
    data instanceof Uint8Array
      ? (async function* () {
          yield data
        })()
      : data
  return {
    chunks,
    used() {
      const used = result.usage.used()
      return { characters: used.characters ?? text.length, cost: valueOf(model.prices, used) }
    },
  }
}
