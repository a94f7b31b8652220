/**
 * backend: the GPU backend adapter. Sends the request to the model server that serves the
 * resolved model, over the backend's keep-alive pool, as an OpenAI-compatible call; relays a
 * stream event by event; normalizes the servers' differences; passes upstream errors through
 * with their status and message; 502 "upstream request failed" when the server cannot be
 * reached; aborts the upstream request when the client goes. For a model with fallbacks, it
 * tells the backends service how the request is made for each (`refit`): the fallback's served
 * name, its own reasoning level fields, its own `dimensions` rule.
 */
import {
  GatewayError,
  RelayedJson,
  SerializedEvent,
  definePlugin,
  reply,
  type Exchange,
  type JsonReply,
  type Kernel,
  type Narrowed,
  type StreamItem,
} from '../../kernel/contract/index.js'
import type { UpstreamCall, UpstreamResponse } from '../../kernel/contract/index.js'
import type { ModelConfig } from '../../schemas/models.schema.js'
import { chooseLevel, mergeFields, unmerge } from '../../domains/gateway/reasoning-levels.js'
import { configSchema } from './schema.js'
import { SseParser } from './sse-parser.js'
import { normalizeChunk, normalizeCompletion } from './openai-normalize.js'
import { streamedTokens, TOKENS_PER_MESSAGE } from '../../protocols/openai/token-estimate.js'
import { chatDemand, reportedUsage, type OpenAIUsage } from '../../protocols/openai/usage.js'
import { embeddingsDemand } from '../../protocols/openai/embeddings.js'
import { normalizeEmbeddings } from './embeddings-reply.js'
import { LargeReplies } from './large-replies/large-replies.js'
import { LARGE_BODY } from '../../protocols/http/byte-sink.js'
import { declaredSize, isLargeBody, jsonBytesInTurns } from '../../protocols/http/large-json-write.js'

const PATHS = { chat: '/v1/chat/completions', completions: '/v1/completions', embeddings: '/v1/embeddings' } as const

type Body = Record<string, unknown> & { stream?: boolean; stream_options?: { include_usage?: boolean } | null }

export default definePlugin({
  name: 'backend',
  config: configSchema,
  requires: ['model'],
  reachesModel: {
    demand(ex) {
      const estimate = { perMessage: TOKENS_PER_MESSAGE, perImage: ex.state.model?.model.tokens_per_image ?? 1024 }
      const body = ex.body as { input?: unknown; messages?: unknown; prompt?: unknown }
      return body.input !== undefined && body.messages === undefined && body.prompt === undefined
        ? embeddingsDemand(body)
        : chatDemand(body, estimate)
    },
  },
  open: () => new LargeReplies(),
  setup(config, kernel, largeReplies) {
    const path = PATHS[config.endpoint]
    if (config.endpoint === 'embeddings') return { request: (ex, next) => embeddings(ex, next, kernel) }
    return {
      async request(ex, next) {
        const model = ex.state.model.model
        const sent = ex.body as Body
        const streaming = sent.stream === true
        const clientWantsUsage = sent.stream_options?.include_usage === true
        const accept = streaming ? 'text/event-stream' : 'application/json'
        const upstreamBody = chatUpstream(sent, model, streaming)
        const call: UpstreamCall = {
          model,
          path,
          // A large body is encoded in turns (60 MiB took the loop 0.35 s in one); a small one at once, with no await.
          body: isLargeBody(upstreamBody, ex.header('content-length'))
            ? await jsonBytesInTurns(upstreamBody, declaredSize(ex.header('content-length')))
            : JSON.stringify(upstreamBody),
          accept,
          refit: model.fallbacks?.length ? (other) => chatFor(ex, other, path, accept, streaming) : undefined,
        }
        if (!streaming) {
          const answer = await kernel.backends.callText(ex, call)
          if (ex.usage.fallbackFrom !== undefined) reasoningServedBy(ex, kernel)
          const read =
            answer.bytes.length < LARGE_BODY ? readCompletion(answer.text) : await readLarge(largeReplies, answer.bytes)
          if (read.usage) ex.usage.report(reportedUsage(read.usage))
          ex.usage.upstreamModel = read.model
          ex.usage.firstTokenAt = kernel.now()
          ex.reply = read.reply
        } else {
          const res = await kernel.backends.call(ex, call)
          if (ex.usage.fallbackFrom !== undefined) reasoningServedBy(ex, kernel)
          ex.reply = reply.events(relay(ex, res, clientWantsUsage, kernel), { terminator: '[DONE]' })
        }
        await next()
      },
    }
  },
})

/** The upstream body of a chat or completion for `model`: its served name, and usage asked for. */
function chatUpstream(sent: Body, model: ModelConfig, streaming: boolean): Body {
  const upstreamBody: Body = { ...sent, model: model.served_name ?? model.id }
  // Always ask for usage upstream: the gateway counts tokens whatever the client asked.
  if (streaming) upstreamBody.stream_options = { ...(upstreamBody.stream_options ?? {}), include_usage: true }
  return upstreamBody
}

/** The same as JSON text, at once (for a fallback, which is rare: a large body is then encoded in one turn). */
const chatBody = (sent: Body, model: ModelConfig, streaming: boolean) =>
  JSON.stringify(chatUpstream(sent, model, streaming))

/**
 * The request made for a fallback model: the client's body with the reasoning fields of the
 * first model taken out and the fallback's own merged in (the level asked for, or the nearest
 * it has). A completion needs a model that serves completions. What other steps did for the
 * first model (a boon's image descriptions, a budget's lowered max_tokens) stays as it was.
 */
function chatFor(
  ex: Narrowed<'model'>,
  model: ModelConfig,
  path: string,
  accept: string,
  streaming: boolean,
): UpstreamCall | undefined {
  if (path === PATHS.completions && !model.supports_completions) return undefined
  let sent = ex.body as Body
  const reasoning = ex.state.reasoning
  if (reasoning?.prior) {
    sent = { ...sent }
    unmerge(sent, reasoning.prior)
    mergeFields(sent, chooseLevel(model, ex.state.model.familyLevel ?? reasoning.requested).fields)
  }
  return { model, path, body: chatBody(sent, model, streaming), accept }
}

/** Once a fallback answered: the reasoning headers say the level it served. */
function reasoningServedBy(ex: Narrowed<'model'>, kernel: Kernel): void {
  const reasoning = ex.state.reasoning
  const answered = ex.usage.model === undefined ? undefined : kernel.catalog.model(ex.usage.model)
  if (!reasoning || !answered) return
  const wanted = ex.state.model.familyLevel ?? reasoning.requested
  const served = chooseLevel(answered, wanted).served
  reasoning.served = served
  const prefix = ex.headerPrefix
  ex.headers.set(`${prefix}reasoning-effort`, served)
  if (reasoning.requested !== undefined && reasoning.requested !== served)
    ex.headers.set(`${prefix}reasoning-effort-requested`, reasoning.requested)
  else ex.headers.delete(`${prefix}reasoning-effort-requested`)
}

/**
 * POST /v1/embeddings: one JSON reply, never a stream. `dimensions` reaches the server only for
 * a model that takes it (for another, the capabilities step let through only the model's own
 * size, which a server of a fixed-size model may refuse to be told).
 */
async function embeddings(ex: Narrowed<'model'>, next: () => Promise<void>, kernel: Kernel): Promise<void> {
  const model = ex.state.model.model
  const sent = ex.body as EmbeddingsBody
  const upstreamBody = embeddingsUpstream(sent, model)
  const res = await kernel.backends.callText(ex, {
    model,
    path: PATHS.embeddings,
    body: isLargeBody(upstreamBody, ex.header('content-length'))
      ? await jsonBytesInTurns(upstreamBody, declaredSize(ex.header('content-length')))
      : JSON.stringify(upstreamBody),
    accept: 'application/json',
    refit: model.fallbacks?.length
      ? (other) => ({
          model: other,
          path: PATHS.embeddings,
          body: embeddingsBody(sent, other),
          accept: 'application/json',
        })
      : undefined,
  })
  // A fallback of the same dimensions (checked at load) may differ in taking `dimensions`.
  const answered =
    ex.usage.fallbackFrom === undefined ? model : (kernel.catalog.model(ex.usage.model ?? model.id) ?? model)
  const text = res.text
  const body = parseUpstream(text) as Record<string, unknown>
  const { usage, changed } = normalizeEmbeddings(body, {
    format: sent.encoding_format ?? 'float',
    dimensions: answered.supports_dimensions ? sent.dimensions : undefined,
  })
  if (usage) ex.usage.report(reportedUsage(usage))
  ex.usage.upstreamModel = typeof body.model === 'string' ? body.model : undefined
  ex.usage.firstTokenAt = kernel.now()
  // Unchanged, the server's own text leaves as it came: no second serialization of the floats.
  ex.reply = changed ? reply.json(body, 200) : reply.text('application/json', text)
  await next()
}

type EmbeddingsBody = Body & { encoding_format?: 'float' | 'base64'; dimensions?: number }

/** The upstream body of an embeddings request for `model`: `dimensions` only for a model that takes it. */
function embeddingsUpstream(sent: EmbeddingsBody, model: ModelConfig): Body {
  const upstreamBody: Body = { ...sent, model: model.served_name ?? model.id }
  delete upstreamBody.stream
  delete upstreamBody.stream_options
  if (!model.supports_dimensions) delete upstreamBody.dimensions
  return upstreamBody
}

const embeddingsBody = (sent: EmbeddingsBody, model: ModelConfig) => JSON.stringify(embeddingsUpstream(sent, model))

type ReadReply = { usage: OpenAIUsage | undefined; model: string | undefined; reply: JsonReply }

/** A whole completion, normalized. Unchanged, the server's text leaves as it came unless a later step reads the body. */
function readCompletion(text: string): ReadReply {
  const body = parseUpstream(text) as Record<string, unknown>
  const { usage, changed } = normalizeCompletion(body)
  const model = typeof body.model === 'string' ? body.model : undefined
  return { usage, model, reply: changed ? reply.json(body, 200) : new RelayedJson(text, body, 200) }
}

/**
 * The same, read on the plugin's worker: its bytes go there and come back moved, not copied, and
 * are written as they are; the object is made on this thread only if a step asks for it.
 */
async function readLarge(largeReplies: LargeReplies, bytes: Buffer): Promise<ReadReply> {
  try {
    const read = await largeReplies.read(bytes)
    return { usage: read.usage, model: read.model, reply: RelayedJson.unparsed(read.bytes, 200) }
  } catch (err) {
    throw new GatewayError(502, 'upstream request failed', { code: 'upstream_failed', cause: err })
  }
}

function parseUpstream(text: string): unknown {
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

function relayEvent(data: string, usage: Exchange['usage'], clientWantsUsage: boolean, kernel: Kernel): Relayed {
  if (data === '[DONE]') return 'done'
  // Most events need nothing changed: they go out as the server wrote them, unparsed. Any
  // event that might carry usage, an error or `reasoning_content` (a substring test can only
  // send an event down the careful path, never skip one), and the first (for `model`), are read.
  if (
    usage.upstreamModel !== undefined &&
    !data.includes('"usage"') &&
    !data.includes('"error"') &&
    !data.includes('reasoning_content')
  ) {
    if (usage.firstTokenAt === undefined && CHOICES.test(data)) usage.firstTokenAt = kernel.now()
    if (PIECE.test(data)) usage.streamed++
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
    throw new GatewayError(502, typeof e.message === 'string' ? e.message : 'upstream stream failed', {
      code: 'upstream_error',
    })
  }
  normalizeChunk(chunk)
  const choices = chunk.choices
  if (usage.firstTokenAt === undefined && Array.isArray(choices) && choices.length > 0)
    usage.firstTokenAt = kernel.now()
  if (typeof chunk.model === 'string') usage.upstreamModel = chunk.model
  if (chunk.usage) usage.report(reportedUsage(chunk.usage as OpenAIUsage))
  usage.streamed += streamedTokens(chunk)
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
 * The end the gateway writes when a server streams past the request's output limit (its
 * `max_tokens`, or what a budget afforded): what a server that kept to it would have sent.
 */
function lengthEnd(usage: Exchange['usage']): StreamItem {
  return {
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: usage.upstreamModel ?? usage.model ?? '',
    choices: [{ index: 0, delta: {}, finish_reason: 'length' }],
  }
}

/**
 * The upstream stream as client events. One async step per upstream read, not per event: the
 * parser hands back every event a read completes. A server that streams more pieces than the
 * request may produce is cut there: the client gets a `length` end, and nothing past the limit
 * is relayed or charged.
 */
async function* relay(
  ex: Exchange,
  res: UpstreamResponse,
  clientWantsUsage: boolean,
  kernel: Kernel,
): AsyncGenerator<StreamItem> {
  const usage = ex.usage
  const body = res.body
  const parser = new SseParser()
  const cap = usage.outputCap()
  let completed = false
  try {
    // Read on to the body's end after [DONE] rather than break: breaking would destroy the
    // body (an AbortError per stream) and could cost the keep-alive connection.
    for await (const bytes of body) {
      for (const data of parser.push(bytes)) {
        if (completed) continue
        const event = relayEvent(data, usage, clientWantsUsage, kernel)
        if (event === 'done') completed = true
        else if (usage.streamed > cap) {
          completed = true
          body.destroy()
          yield lengthEnd(usage)
          return
        } else if (event !== null) yield event
      }
    }
    const last = parser.end()
    if (last !== undefined && !completed) {
      const event = relayEvent(last, usage, clientWantsUsage, kernel)
      if (event === 'done') completed = true
      else if (event !== null) yield event
    }
  } catch (err) {
    // A stopped request (time limit, client gone) is said as such, even when undici rethrows
    // the abort reason itself.
    if (err instanceof GatewayError && !ex.signal.aborted) throw err
    throw res.failure(err, true)
  } finally {
    if (!completed) body.destroy()
  }
  if (!completed)
    throw new GatewayError(502, 'upstream stream ended before it was complete', { code: 'upstream_failed' })
}
