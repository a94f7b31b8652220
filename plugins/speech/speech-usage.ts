/**
 * Usage of a speech request, as the `speech.audio.done` event reports it. Speech servers send
 * audio, not counts, so the gateway counts: input tokens by the four-bytes-per-token rule of
 * thumb (the simulator's tokenizer uses the same), output tokens at Orpheus's audio-token rate
 * of 7 tokens per 2048 samples at 24 kHz (one SNAC frame), scaled to the server's rate.
 */
export interface SpeechUsage {
  input_tokens: number
  output_tokens: number
  total_tokens: number
}

export function speechUsage(input: string, pcmBytes: number, sampleRate: number): SpeechUsage {
  const inputTokens = Math.ceil(Buffer.byteLength(input, 'utf8') / 4)
  const samples = Math.floor(pcmBytes / 2)
  const outputTokens = Math.ceil(((samples * 24000) / sampleRate) * (7 / 2048))
  return { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens }
}
