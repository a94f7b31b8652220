/**
 * The call to the speech server: an OpenAI-compatible POST /v1/audio/speech through the
 * kernel's one upstream call (errors pass through with the server's status and message; a
 * server that cannot be reached is 502; the client going away aborts the call).
 */
import type { Exchange, Kernel, UpstreamCall } from '../../kernel/contract/index.js'
import type { ModelConfig } from '../../schemas/models.schema.js'

export interface UpstreamSpeech {
  readonly contentType: string | undefined
  /** The audio as it arrives. Iterating it after the client went away ends it. */
  readonly body: AsyncIterable<Buffer>
  /** Stops reading (and frees the connection) when the gateway no longer wants the rest. */
  destroy(): void
}

/** The call that asks `model` to speak, with the body planned for it. */
export function speechCall(model: ModelConfig, body: Record<string, unknown>): UpstreamCall {
  return { model, path: '/v1/audio/speech', body: JSON.stringify(body) }
}

/** `refit`: the call for a fallback model (models.yaml `fallbacks`), planned for it. */
export async function requestSpeech(
  kernel: Kernel,
  ex: Exchange,
  call: UpstreamCall,
  refit?: UpstreamCall['refit'],
): Promise<UpstreamSpeech> {
  const res = await kernel.backends.call(ex, refit ? { ...call, refit } : call)
  return { contentType: res.contentType, body: res.chunks(), destroy: () => res.body.destroy() }
}
