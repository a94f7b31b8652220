/**
 * Turning the server's audio into the reply the client asked for:
 *
 * - live (a streaming server, pcm or wav): bytes go out as they arrive, behind a streamed WAV
 *   header for wav; as `speech.audio.delta` events for SSE, then `speech.audio.done` with usage;
 * - whole: the audio is read to its end first (so a server error is still an HTTP status), then
 *   sent as pcm, as a WAV with its true sizes, encoded into mp3/opus/flac, or as events.
 */
import { reply, type Exchange, type Reply, type StreamEvent } from '../../kernel/contract/index.js'
import type { SpeechPlan } from './speech-plan.js'
import type { UpstreamSpeech } from './speech-upstream.js'
import { collect, pcmFromWav, wholeSamples } from './pcm-stream.js'
import { wavHeader } from '../../protocols/audio/wav-header.js'
import { contentTypes, encodePcm, type EncodedFormat } from './pcm-encoders.js'
import { speechReport, speechUsage, type SpeechUsage } from './speech-usage.js'

export interface SpeechRecord {
  modelId: string
  format: string
  delivery: 'live' | 'whole'
  sse: boolean
  /** Epoch ms when the first audio byte was handed to the kernel. */
  firstAudioAt?: number
  /** PCM bytes received from the server. */
  pcmBytes: number
  usage?: SpeechUsage
}

export interface DeliveryOptions {
  readonly ex: Exchange
  readonly plan: SpeechPlan
  readonly input: string
  readonly sampleRate: number
  readonly pcmFrom: 'pcm' | 'wav'
  readonly sseChunkBytes: number
  readonly record: SpeechRecord
  readonly now: () => number
}

function delta(audio: Buffer): StreamEvent {
  return { type: 'speech.audio.delta', audio: audio.toString('base64') }
}

export async function deliver(o: DeliveryOptions, upstream: UpstreamSpeech): Promise<Reply> {
  const { plan, record } = o
  if (!plan.fromPcm) {
    // The server encodes this format itself: its bytes pass through.
    const bytes = await collect(upstream.body)
    record.firstAudioAt = o.now()
    // An encoded file the server made: its length says nothing exact, so the input is what is known.
    o.ex.usage.firstTokenAt ??= record.firstAudioAt
    o.ex.usage.report({ inputTokens: Math.ceil(Buffer.byteLength(o.input, 'utf8') / 4), characters: o.input.length })
    return reply.bytes(upstream.contentType ?? contentTypes[plan.format], bytes)
  }
  const counted = countPcm(o.pcmFrom === 'wav' ? pcmFromWav(upstream.body, o.sampleRate) : upstream.body, o)
  if (plan.delivery === 'live') return live(o, upstream, counted)
  const pcm = await collect(counted)
  record.usage = speechUsage(o.input, pcm.length, o.sampleRate)
  record.firstAudioAt = o.now()
  switch (plan.format) {
    case 'pcm':
      return plan.sse ? reply.events(events(o, [pcm])) : reply.bytes(contentTypes.pcm, pcm)
    case 'wav': {
      const header = wavHeader(pcm.length, o.sampleRate)
      return plan.sse
        ? reply.events(events(o, [header, pcm]))
        : reply.bytes(contentTypes.wav, Buffer.concat([header, pcm]))
    }
    default: {
      const format = plan.format as EncodedFormat
      return reply.bytes(contentTypes[format], await encodePcm(format, pcm, o.sampleRate, o.ex.signal))
    }
  }
}

/** Counts the audio as it arrives: `ex.usage` always holds what was made so far, a cut stream included. */
async function* countPcm(source: AsyncIterable<Buffer>, o: DeliveryOptions): AsyncGenerator<Buffer> {
  const { record, ex } = o
  for await (const chunk of source) {
    record.pcmBytes += chunk.length
    ex.usage.firstTokenAt ??= o.now()
    ex.usage.report(speechReport(o.input, speechUsage(o.input, record.pcmBytes, o.sampleRate)))
    yield chunk
  }
}

/** Audio as it is made: the server's chunks are forwarded as they come. */
function live(o: DeliveryOptions, upstream: UpstreamSpeech, pcm: AsyncIterable<Buffer>): Reply {
  const { record } = o
  const header = o.plan.format === 'wav' ? wavHeader(undefined, o.sampleRate) : undefined
  const finish = () => {
    record.usage = speechUsage(o.input, record.pcmBytes, o.sampleRate)
  }
  if (o.plan.sse) {
    async function* sse(): AsyncGenerator<StreamEvent> {
      let done = false
      try {
        let first: Buffer | undefined = header
        for await (const chunk of wholeSamples(pcm, o.sseChunkBytes)) {
          record.firstAudioAt ??= o.now()
          yield delta(first ? Buffer.concat([first, chunk]) : chunk)
          first = undefined
        }
        if (first) yield delta(first)
        done = true
        finish()
        yield { type: 'speech.audio.done', usage: record.usage }
      } finally {
        if (!done) upstream.destroy()
      }
    }
    return reply.events(sse())
  }
  async function* bytes(): AsyncGenerator<Uint8Array> {
    let done = false
    try {
      if (header) yield header
      for await (const chunk of pcm) {
        record.firstAudioAt ??= o.now()
        yield chunk
      }
      done = true
      finish()
    } finally {
      if (!done) upstream.destroy()
    }
  }
  return reply.bytes(contentTypes[o.plan.format as 'pcm' | 'wav'], bytes())
}

/** A whole audio as events: deltas of whole samples, then the usage. */
async function* events(o: DeliveryOptions, parts: Buffer[]): AsyncGenerator<StreamEvent> {
  async function* source(): AsyncGenerator<Buffer> {
    yield* parts
  }
  for await (const chunk of wholeSamples(source(), o.sseChunkBytes)) yield delta(chunk)
  yield { type: 'speech.audio.done', usage: o.record.usage }
}
