/**
 * Usage of a speech request. Speech servers send audio, not counts, so the gateway counts:
 * input tokens by the four-bytes-per-token rule of thumb (the simulator's tokenizer uses the
 * same), output tokens at Orpheus's audio-token rate of 7 tokens per 2048 samples at 24 kHz
 * (one SNAC frame), scaled to the server's rate; characters of input for models priced so.
 * `speech.audio.done` reports the tokens; `ex.usage` gets all three.
 */
import type { Demand, ReportedUsage } from '../../kernel/contract/index.js'

export interface SpeechUsage {
  input_tokens: number
  output_tokens: number
  total_tokens: number
}

/** Audio tokens per second at 24 kHz: 7 per 2048 samples. */
const TOKENS_PER_SECOND = (24000 * 7) / 2048
/** Characters spoken per second, from below (slow speech): bounds the audio a text can make. */
const CHARS_PER_SECOND = 10

export function speechUsage(input: string, pcmBytes: number, sampleRate: number): SpeechUsage {
  const inputTokens = Math.ceil(Buffer.byteLength(input, 'utf8') / 4)
  const samples = Math.floor(pcmBytes / 2)
  const outputTokens = Math.ceil(((samples * 24000) / sampleRate) * (7 / 2048))
  return { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens }
}

/** The same figures in the gateway's terms. */
export function speechReport(input: string, usage: SpeechUsage): ReportedUsage {
  return { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens, characters: input.length }
}

/** What a speech request may cost before it runs: its input, and the audio its text can make. */
export function speechDemand(input: string): Demand {
  const seconds = input.length / CHARS_PER_SECOND
  return {
    inputTokens: Math.ceil(Buffer.byteLength(input, 'utf8') / 4),
    outputTokens: Math.ceil(seconds * TOKENS_PER_SECOND),
    choices: 1,
    adjustable: false,
    characters: input.length,
  }
}
