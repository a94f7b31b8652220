/**
 * The call to the speech server: an OpenAI-compatible POST /v1/audio/speech over the backend's
 * keep-alive pool. Errors the server answers pass through with its status and message; a
 * server that cannot be reached is 502; the client going away aborts the call.
 */
import { upstreamHeaders } from '../../kernel/services/backends/pools.js'
import { request } from 'undici'
import type { Exchange } from '../../kernel/exchange.js'
import type { Kernel } from '../../kernel/kernel.js'
import { transportFailure, upstreamError } from '../../kernel/services/backends/upstream-error.js'

export interface UpstreamSpeech {
  readonly contentType: string | undefined
  /** The audio as it arrives. Iterating it after the client went away ends it. */
  readonly body: AsyncIterable<Buffer>
  /** Stops reading (and frees the connection) when the gateway no longer wants the rest. */
  destroy(): void
}

export async function requestSpeech(kernel: Kernel, ex: Exchange, backendName: string, body: Record<string, unknown>): Promise<UpstreamSpeech> {
  const backend = kernel.backends.get(backendName)
  const headers = upstreamHeaders(ex, backend.config)
  headers['content-type'] = 'application/json'
  let res
  try {
    res = await request(`${backend.baseUrl}/v1/audio/speech`, { dispatcher: backend.dispatcher, method: 'POST', headers, body: JSON.stringify(body), signal: ex.signal })
  } catch (err) {
    throw transportFailure(ex.signal, err, false)
  }
  if (res.statusCode >= 400) {
    const text = await res.body.text().catch(() => '')
    throw upstreamError(res.statusCode, text)
  }
  const stream = res.body
  const contentType = res.headers['content-type']
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of stream) yield chunk as Buffer
    } catch (err) {
      throw transportFailure(ex.signal, err, true)
    }
  }
  return {
    contentType: Array.isArray(contentType) ? contentType[0] : contentType,
    body: chunks(),
    destroy: () => stream.destroy(),
  }
}
