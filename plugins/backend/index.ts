/**
 * backend: the GPU backend adapter. Sends the request to the model server that serves the
 * resolved model, over the backend's keep-alive pool, as an OpenAI-compatible call; relays a
 * stream event by event; normalizes the servers' differences; passes upstream errors through
 * with their status and message; 502 "upstream request failed" when the server cannot be
 * reached; aborts the upstream request when the client goes.
 */
import type { Dispatcher } from 'undici'
import { definePlugin } from '../../kernel/plugin.js'
import { GatewayError } from '../../kernel/errors.js'
import { reply, SerializedEvent, type StreamItem } from '../../kernel/reply.js'
import type { Exchange } from '../../kernel/exchange.js'
import type { Kernel } from '../../kernel/kernel.js'
import { configSchema } from './schema.js'
import { SseParser } from './sse-parser.js'
import { transportFailure, upstreamError } from '../../kernel/services/backends/upstream-error.js'
import { normalizeChunk, normalizeCompletion, type Usage } from './openai-normalize.js'
import { streamedTokens } from '../../protocols/openai/token-estimate.js'
import { upstreamHeaders } from '../../kernel/services/backends/pools.js'

declare module '../../kernel/exchange.js' {
  interface ExchangeState {
    backend?: {
      /** Catalog id of the model that was called. */
      modelId: string
      /** The `model` the server reported. */
      upstreamModel?: string
      usage?: Usage
      /** Epoch ms of the first streamed token (or of the whole reply). */
      firstTokenAt?: number
      /**
       * Pieces streamed so far, counted once here for every step that needs a stream's size
       * when it ends without a usage report (cut, abandoned): budget, fair queue, records.
       */
      streamedTokens: number
    }
  }
}

const PATHS = { chat: '/v1/chat/completions', completions: '/v1/completions', embeddings: '/v1/embeddings' } as const

type Body = Record<string, unknown> & { stream?: boolean; stream_options?: { include_usage?: boolean } | null }

export default definePlugin({
  name: 'backend',
  config: configSchema,
  requires: ['model'],
  setup(config, kernel) {
    const path = PATHS[config.endpoint ?? 'chat']
    return {
      async request(ex, next) {
        const model = ex.state.model!.model
        const upstreamBody: Body = { ...(ex.body as Body), model: model.served_name ?? model.id }
        const streaming = upstreamBody.stream === true
        const clientWantsUsage = upstreamBody.stream_options?.include_usage === true
        // Always ask for usage upstream: the gateway counts tokens whatever the client asked.
        if (streaming) upstreamBody.stream_options = { ...(upstreamBody.stream_options ?? {}), include_usage: true }
        ex.state.backend = { modelId: model.id, streamedTokens: 0 }
        const res = await send(kernel, ex, model.backend, path, upstreamBody, streaming)
        if (!streaming) {
          const body = (await readJson(res.body, ex)) as Record<string, unknown>
          const usage = normalizeCompletion(body)
          ex.state.backend.usage = usage
          ex.state.backend.upstreamModel = typeof body.model === 'string' ? body.model : undefined
          ex.state.backend.firstTokenAt = kernel.now()
          ex.reply = reply.json(body, 200)
        } else {
          ex.reply = reply.events(relay(ex, res.body, clientWantsUsage, kernel), { terminator: '[DONE]' })
        }
        await next()
      },
    }
  },
})

type UpstreamBody = Dispatcher.ResponseData['body']

async function send(kernel: Kernel, ex: Exchange, backendName: string, path: string, body: Body, streaming: boolean) {
  const backend = kernel.backends.get(backendName)
  const headers = upstreamHeaders(ex, backend.config)
  headers['content-type'] = 'application/json'
  headers.accept = streaming ? 'text/event-stream' : 'application/json'
  let res
  try {
    res = await backend.dispatcher.request({ origin: backend.origin, path: backend.pathPrefix + path, method: 'POST', headers, body: JSON.stringify(body), signal: ex.signal })
  } catch (err) {
    throw transportFailure(ex.signal, err, false)
  }
  if (res.statusCode >= 400) {
    const text = await res.body.text().catch(() => '')
    throw upstreamError(res.statusCode, text)
  }
  return res
}

async function readJson(body: UpstreamBody, ex: Exchange): Promise<unknown> {
  let text: string
  try {
    text = await body.text()
  } catch (err) {
    throw transportFailure(ex.signal, err, false)
  }
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new GatewayError(502, 'upstream request failed', { code: 'upstream_failed', cause: err })
  }
}

/** What one upstream event becomes for the client: an event, nothing (dropped), or the end. */
type Relayed = StreamItem | null | 'done'

/** A piece of a reply: content, reasoning or a tool call with something in it. */
const PIECE = /"(?:content|reasoning)":\s*"[^"]|"tool_calls":\s*\[/
/** An event with choices in it (Python servers write `": "` with a space, so allow for it). */
const CHOICES = /"choices":\s*\[\s*\{/

function relayEvent(data: string, slot: NonNullable<Exchange['state']['backend']>, clientWantsUsage: boolean, kernel: Kernel): Relayed {
  if (data === '[DONE]') return 'done'
  // Most events need nothing changed: they go out as the server wrote them, unparsed. Any
  // event that might carry usage, an error or `reasoning_content` (a substring test can only
  // send an event down the careful path, never skip one), and the first (for `model`), are read.
  if (slot.upstreamModel !== undefined && !data.includes('"usage"') && !data.includes('"error"') && !data.includes('reasoning_content')) {
    if (slot.firstTokenAt === undefined && CHOICES.test(data)) slot.firstTokenAt = kernel.now()
    if (PIECE.test(data)) slot.streamedTokens++
    return new SerializedEvent(data)
  }
  let chunk: Record<string, unknown>
  try {
    chunk = JSON.parse(data) as Record<string, unknown>
  } catch (err) {
    throw new GatewayError(502, 'upstream sent a malformed stream event', { code: 'upstream_failed', cause: err })
  }
  if (chunk.error) {
    const e = chunk.error as { message?: string }
    throw new GatewayError(502, typeof e.message === 'string' ? e.message : 'upstream stream failed', { code: 'upstream_error' })
  }
  normalizeChunk(chunk)
  const choices = chunk.choices
  if (slot.firstTokenAt === undefined && Array.isArray(choices) && choices.length > 0) slot.firstTokenAt = kernel.now()
  if (typeof chunk.model === 'string') slot.upstreamModel = chunk.model
  if (chunk.usage) slot.usage = chunk.usage as Usage
  slot.streamedTokens += streamedTokens(chunk)
  if (!clientWantsUsage) {
    if (Array.isArray(choices) && choices.length === 0) return null
    delete chunk.usage
  } else if (chunk.usage === null) {
    // vLLM's shape: only the last chunk carries usage (OpenAI's `usage: null` elsewhere is dropped).
    delete chunk.usage
  }
  return chunk
}

/**
 * The upstream stream as client events. One async step per upstream read, not per event: the
 * parser hands back every event a read completes.
 */
async function* relay(ex: Exchange, body: UpstreamBody, clientWantsUsage: boolean, kernel: Kernel): AsyncGenerator<StreamItem> {
  const slot = ex.state.backend!
  const parser = new SseParser()
  let completed = false
  try {
    // Read on to the body's end after [DONE] rather than break: breaking would destroy the
    // body (an AbortError per stream) and could cost the keep-alive connection.
    for await (const bytes of body) {
      for (const data of parser.push(bytes)) {
        if (completed) continue
        const event = relayEvent(data, slot, clientWantsUsage, kernel)
        if (event === 'done') completed = true
        else if (event !== null) yield event
      }
    }
    const last = parser.end()
    if (last !== undefined && !completed) {
      const event = relayEvent(last, slot, clientWantsUsage, kernel)
      if (event === 'done') completed = true
      else if (event !== null) yield event
    }
  } catch (err) {
    // A stopped request (time limit, client gone) is said as such, even when undici rethrows
    // the abort reason itself.
    if (err instanceof GatewayError && !ex.signal.aborted) throw err
    throw transportFailure(ex.signal, err, true)
  } finally {
    if (!completed) body.destroy()
  }
  if (!completed) throw new GatewayError(502, 'upstream stream ended before it was complete', { code: 'upstream_failed' })
}
