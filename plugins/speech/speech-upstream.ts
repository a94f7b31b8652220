/**
 * The call to the speech server: an OpenAI-compatible POST /v1/audio/speech through the
 * kernel's one upstream call (errors pass through with the server's status and message; a
 * server that cannot be reached is 502; the client going away aborts the call).
 */
import type { Exchange, Kernel } from '../../kernel/contract/index.js'
import type { ModelConfig } from '../../schemas/models.schema.js'

export interface UpstreamSpeech {
  readonly contentType: string | undefined
  /** The audio as it arrives. Iterating it after the client went away ends it. */
  readonly body: AsyncIterable<Buffer>
  /** Stops reading (and frees the connection) when the gateway no longer wants the rest. */
  destroy(): void
}

export async function requestSpeech(
  kernel: Kernel,
  ex: Exchange,
  model: ModelConfig,
  body: Record<string, unknown>,
): Promise<UpstreamSpeech> {
  const res = await kernel.backends.call(ex, { model, path: '/v1/audio/speech', body: JSON.stringify(body) })
  return { contentType: res.contentType, body: res.chunks(), destroy: () => res.body.destroy() }
}
