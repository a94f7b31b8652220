/**
 * Embeddings for the knowledge API through the gateway's own `embeddings` route, so that each
 * call is queued, budgeted and recorded like a client request (ARCHITECTURE: whatever touches a
 * model goes through a route). The key that carries them is `knowledge.embedding_key`.
 */
import { GatewayError, type Principal, type Reply } from '../../../kernel/contract/index.js'
import type { Embed } from './knowledge-base.js'

/** The part of `kernel.call` this needs. */
export type RouteCall = (
  routeId: string,
  body: unknown,
  options: { principal: Principal; signal?: AbortSignal; parentId?: string },
) => Promise<{ reply: Reply }>

/** The principal of `knowledge.embedding_key`; 503 when that key does not exist. */
export function embeddingPrincipal(
  keys: { key(id: string): { id: string; group: string; legacy: boolean } | undefined },
  keyId: string,
): Principal {
  const key = keys.key(keyId)
  if (!key)
    throw new GatewayError(
      503,
      `the knowledge base cannot embed: knowledge.embedding_key "${keyId}" is not a key of this gateway`,
    )
  return { keyId: key.id, group: key.group, legacy: key.legacy }
}

/** `route`: the embeddings route (server.yaml `query.routes.embeddings`). */
export function embedThroughRoute(
  call: RouteCall,
  route: string,
  principal: Principal,
  context: { signal?: AbortSignal; parentId?: string } = {},
  /** The model's input limit in its own tokens: the catalog's `context_window` (knowledge-base.ts fits inputs to it). */
  inputTokens?: (model: string) => number | undefined,
): Embed {
  const embed = async (model: string, input: readonly string[]) => {
    // base64: a batch's floats are neither printed nor parsed as text on the event loop, at either
    // end (a quarter of float's cost through the route, docs/performance.md "Embeddings").
    const { reply } = await call(route, { model, input, encoding_format: 'base64' }, { principal, ...context })
    // The backend relays the server's JSON as text when it has nothing to change in it.
    const body = reply.kind === 'json' ? reply.body : reply.kind === 'text' ? parse(reply.text) : undefined
    if (reply.status !== 200) {
      const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message
      throw new GatewayError(
        502,
        `embedding model ${model} refused the input (${reply.status})${typeof message === 'string' ? `: ${message}` : ''}`,
        { code: 'upstream_failed' },
      )
    }
    if (!body) throw new GatewayError(502, `embedding model ${model} gave no JSON answer`)
    const data = (body as { data?: { index: number; embedding: unknown }[] }).data
    if (!Array.isArray(data)) throw new GatewayError(502, `embedding model ${model} answered without data`)
    const out: Float32Array[] = []
    for (const d of data) {
      const vector = vectorOf(d.embedding)
      if (!vector) throw new GatewayError(502, `embedding model ${model} answered without a vector`)
      out[d.index] = vector
    }
    return out
  }
  return inputTokens ? Object.assign(embed, { inputTokens }) : embed
}

/** A vector as base64 (little-endian float32, as the openai SDK reads it) or as floats. */
function vectorOf(embedding: unknown): Float32Array | undefined {
  if (Array.isArray(embedding)) return Float32Array.from(embedding as number[])
  if (typeof embedding !== 'string') return undefined
  const bytes = Buffer.from(embedding, 'base64')
  if (bytes.length % 4 !== 0) return undefined
  // A copy: the decoded bytes may sit unaligned inside a shared pool.
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length))
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
