/**
 * The messages of one realtime request, after OpenAI Realtime's events: the input's transcript
 * (`realtime.transcript`), the answer's text as it is written (`response.text.delta`), then —
 * when audio is asked — the answer spoken, in pieces as the speech route makes them
 * (`response.audio.delta`, base64), and one `response.done` with the transcript, the answer and
 * the usage by part. Speech starts once the answer is whole: the speech route takes one text,
 * and speaking a half-written answer would speak what the model might still qualify.
 */
import { GatewayError, SerializedEvent, type StreamEvent, type StreamItem } from '../../kernel/contract/index.js'
import { usageMetric, type UsageMetric } from '../../protocols/query/usage-metric.js'
import type { Embedding, OutputFormat, Speech, Transcript } from './route-calls.js'

export type AnswerSource =
  | { readonly kind: 'streamed'; readonly events: AsyncIterable<StreamItem> }
  | {
      readonly kind: 'cached'
      readonly text: string
      readonly sources: unknown
      readonly similarity: number
      readonly queryId: string
    }

export interface SpeechPlan {
  readonly model: string
  readonly format: OutputFormat
  readonly voice?: string
  readonly sampleRate: number
  speak(text: string): Promise<Speech>
}

export interface RealtimeRun {
  readonly transcript: Transcript & { readonly model: string }
  readonly lookup?: Embedding & { readonly model: string }
  readonly answer: AnswerSource
  readonly speech?: SpeechPlan
  /** Called with a freshly made answer (the semantic cache keeps it). */
  readonly answered?: (text: string, sources: unknown) => Promise<void>
}

interface QueryDone {
  response?: { response?: unknown; metadata?: { sources?: unknown; usage_metric?: UsageMetric; model?: unknown } }
  query_id?: string
}

const ZERO_METRIC = usageMetric({}, { inputTokens: 0, outputTokens: 0 }, { input: 0, output: 0 })
const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places

export async function* realtimeStream(run: RealtimeRun): AsyncGenerator<StreamEvent> {
  const t = run.transcript
  yield {
    type: 'realtime.transcript',
    transcript: t.text,
    ...(t.language ? { language: t.language } : {}),
    audio_seconds: t.audioSeconds,
  }

  let text: string
  let sources: unknown
  let queryId: string
  let metric: UsageMetric
  let answerModel: unknown
  if (run.answer.kind === 'cached') {
    ;({ text, sources, queryId } = run.answer)
    metric = ZERO_METRIC
    yield { type: 'response.text.delta', delta: text }
  } else {
    let done: QueryDone | undefined
    for await (const item of run.answer.events) {
      const event = item instanceof SerializedEvent ? item.parse() : item
      if (event.type === 'query.delta') yield { type: 'response.text.delta', delta: event.delta }
      else if (event.type === 'query.done') done = event.response as QueryDone
    }
    const answer = done?.response
    if (!answer?.metadata?.usage_metric || done?.query_id === undefined)
      throw new GatewayError(502, 'the answer ended without its final message', { code: 'upstream_failed' })
    text = typeof answer.response === 'string' ? answer.response : JSON.stringify(answer.response)
    sources = answer.metadata.sources ?? {}
    queryId = done.query_id
    metric = answer.metadata.usage_metric
    answerModel = answer.metadata.model
    await run.answered?.(text, sources)
  }

  let spoken: { model: string; characters: number; audio_seconds?: number; cost: number } | undefined
  let audio: { format: OutputFormat; sample_rate: number; voice?: string; bytes: number } | undefined
  const plan = run.speech
  if (plan && text !== '') {
    const speech = await plan.speak(text)
    let bytes = 0
    // pcm16 deltas hold whole samples: a piece that ends mid-sample keeps its odd byte for the next.
    let carry: Buffer = Buffer.alloc(0)
    for await (const piece of speech.chunks) {
      let out = Buffer.concat([carry, Buffer.from(piece)])
      if (plan.format === 'pcm16' && out.length % 2 === 1) {
        carry = out.subarray(out.length - 1)
        out = out.subarray(0, out.length - 1)
      } else carry = Buffer.alloc(0)
      if (out.length === 0) continue
      bytes += out.length
      yield { type: 'response.audio.delta', delta: out.toString('base64') }
    }
    const used = speech.used()
    const pcmBytes = plan.format === 'pcm16' ? bytes : plan.format === 'wav' ? bytes - 44 : undefined
    spoken = {
      model: plan.model,
      characters: used.characters,
      ...(pcmBytes !== undefined ? { audio_seconds: round(pcmBytes / 2 / plan.sampleRate, 3) } : {}),
      cost: used.cost,
    }
    audio = { format: plan.format, sample_rate: plan.sampleRate, ...(plan.voice ? { voice: plan.voice } : {}), bytes }
  }

  const cached = run.answer.kind === 'cached'
  const usage = {
    transcription: { model: t.model, audio_seconds: t.audioSeconds, cost: t.cost },
    ...(run.lookup
      ? { cache_lookup: { model: run.lookup.model, input_tokens: run.lookup.tokens, cost: run.lookup.cost } }
      : {}),
    answer: { ...(typeof answerModel === 'string' ? { model: answerModel } : {}), cached, usage_metric: metric },
    ...(spoken ? { speech: spoken } : {}),
    total_cost: t.cost + (run.lookup?.cost ?? 0) + metric.total_token_cost + (spoken?.cost ?? 0),
  }
  yield {
    type: 'response.done',
    response: {
      query_id: queryId,
      transcript: t.text,
      text,
      sources,
      cached,
      ...(run.answer.kind === 'cached' ? { similarity: round(run.answer.similarity, 6) } : {}),
      ...(audio ? { audio } : {}),
      usage,
    },
  }
}
