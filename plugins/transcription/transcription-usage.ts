/**
 * Usage of a transcription or translation. Servers report the audio's duration (verbose_json,
 * or `usage.seconds` in OpenAI's newer shape), not tokens, so the gateway counts: input tokens
 * at Whisper's encoder rate of 50 audio tokens a second (1,500 per 30 s window), output tokens
 * of the text by the four-bytes-per-token rule. Models are priced by the minute of audio.
 */
import type { Demand, ReportedUsage } from '../../kernel/contract/index.js'

const AUDIO_TOKENS_PER_SECOND = 50
/** Bytes of upload per second of audio assumed before the server says (a 128 kbit/s mp3). */
const BYTES_PER_SECOND = 16_000
/** Spoken text runs at about 3 tokens a second; twice that bounds it. */
const TEXT_TOKENS_PER_SECOND = 6

export function transcriptionDemand(uploadBytes: number): Demand {
  const seconds = uploadBytes / BYTES_PER_SECOND
  return {
    inputTokens: Math.ceil(seconds * AUDIO_TOKENS_PER_SECOND),
    outputTokens: Math.ceil(seconds * TEXT_TOKENS_PER_SECOND),
    choices: 1,
    adjustable: false,
    audioSeconds: seconds,
  }
}

export function transcriptionReport(seconds: number, text: string): ReportedUsage {
  return {
    inputTokens: Math.ceil(seconds * AUDIO_TOKENS_PER_SECOND),
    outputTokens: Math.ceil(Buffer.byteLength(text, 'utf8') / 4),
    audioSeconds: seconds,
  }
}
