/**
 * response-cache: an exact-match cache of whole answers, for the models that opt in
 * (`cache:` in models.yaml) and the requests that do not opt out (`x-gateway-cache: off`).
 * Keyed by the normalised request and the caller's group (request-key.ts). A hit answers here,
 * before budget, queue and backend: no model server runs, the reply says `x-gateway-cache: hit`,
 * and the usage the cached answer told is relayed (recorded by usage-records, marked cached,
 * never charged). A miss says `x-gateway-cache: miss`, goes on, and keeps the answer when it
 * is whole: a 200 JSON completion, or a stream that ended complete (put back together as the
 * whole completion). Either is served to a later request whole or streamed, as it asks.
 * Never kept: errors, cut or abandoned streams, and answers cut short by a limit the request
 * did not set itself (a budget's). In process memory, or in Redis when the deployment has it.
 */
import {
  GatewayError,
  RelayedJson,
  SerializedEvent,
  definePlugin,
  describeCause,
  jsonText,
  reply,
  type Exchange,
  type Narrowed,
  type StreamEvent,
  type StreamItem,
  type Used,
} from '../../kernel/contract/index.js'
import { CompletionAssembler, completionChunks } from '../../protocols/openai/completion-stream.js'
import type { ModelConfig } from '../../schemas/models.schema.js'
import type { CachedAnswer, CacheStore } from './store/cache-store.js'
import { openStores } from './store/open-stores.js'
import { cacheKey } from './request-key.js'
import { configSchema } from './schema.js'

type Body = Record<string, unknown> & { stream?: unknown; stream_options?: { include_usage?: unknown } | null }
type Json = Record<string, unknown>

/** What a request may do with the cache: nothing (undefined), or use it with this TTL. */
interface Policy {
  readonly ttlMs: number
  /** A hit is charged to budgets as a miss would be (models.yaml `cache.charge: full`). */
  readonly charge: boolean
}

export default definePlugin({
  name: 'response-cache',
  config: configSchema,
  requires: ['principal', 'model'],
  provides: [],
  open: openStores,
  setup(config, kernel, stores, step) {
    const store = stores.of(step.route, {
      maxEntries: config.max_entries,
      maxBytes: config.max_bytes,
      redisTimeoutMs: config.redis_timeout_ms,
    })
    const counter = kernel.metrics.counter(
      'sluice_response_cache_total',
      'Response cache lookups and writes, by route and result: hit, miss, stored.',
    )
    const hit = counter.series({ route: step.route, result: 'hit' })
    const miss = counter.series({ route: step.route, result: 'miss' })
    const stored = counter.series({ route: step.route, result: 'stored' })
    if (stores.kind === 'memory')
      kernel.metrics.gauge(
        'sluice_response_cache_bytes',
        'Bytes of answers held by the in-memory response cache, by route.',
        function* () {
          for (const [route, size] of stores.sizes()) yield [{ route }, size.bytes] as const
        },
      )

    /** The request's use of the cache: the model's opt-in, and the request's header. */
    const policyOf = (ex: Exchange, model: ModelConfig): Policy | undefined => {
      const header = ex.header(`${ex.headerPrefix}cache`)
      let asked: 'on' | 'off' | undefined
      if (header !== undefined) {
        const v = header.trim().toLowerCase()
        if (v !== 'on' && v !== 'off')
          throw new GatewayError(400, `${ex.headerPrefix}cache must be on or off`, { code: 'invalid_request' })
        asked = v
      }
      const setting = model.cache
      if (setting === undefined || setting === false || asked === 'off') return undefined
      const own: Exclude<ModelConfig['cache'], boolean | undefined> = setting === true ? {} : setting
      if (own.requests === 'opt_in' && asked !== 'on') return undefined
      return { ttlMs: (own.ttl_s ?? config.ttl_s) * 1000, charge: own.charge === 'full' }
    }

    /** Keeps a whole answer: the completion's text and what the client was told it used. */
    const keep = async (ex: Exchange, key: string, policy: Policy, completion: Json, text: string): Promise<void> => {
      const usage = ex.usage
      const model = usage.toldModel
      if (!usage.answered || model === undefined || !keepable(ex, completion)) return
      const now = kernel.now()
      const answer: CachedAnswer = { body: text, model, used: usage.told(), expiresAt: now + policy.ttlMs }
      const entry = JSON.stringify(answer)
      if (Buffer.byteLength(entry) > config.max_entry_bytes) return
      try {
        await store.set(key, entry, now, answer.expiresAt)
        stored.inc()
      } catch (err) {
        ex.log.warn('response cache: answer not kept', { cause: describeCause(err) })
      }
    }

    /** A request whose model uses the cache: a hit answers, a miss goes on and its answer may be kept. */
    const cached = async (
      ex: Narrowed<'principal' | 'model'>,
      next: () => Promise<void>,
      policy: Policy,
    ): Promise<void> => {
      const body = (ex.body ?? {}) as Body
      const streamed = body.stream === true
      const key = cacheKey({
        route: step.route,
        group: ex.principal.group,
        legacy: ex.principal.legacy,
        model: ex.state.model.model.id,
        body,
        headers: answerHeaders(ex, kernel.catalog.backend(ex.state.model.model.backend)?.forward_headers),
      })
      const found = await lookup(store, ex, key, kernel.now())
      if (found) {
        hit.inc()
        ex.headers.set(`${ex.headerPrefix}cache`, 'hit')
        ex.usage.cached = true
        ex.usage.relay(found.answer.used, found.answer.model, policy.charge)
        ex.usage.firstTokenAt = kernel.now()
        const completion = found.completion
        ex.reply = streamed
          ? reply.events(replay(ex, completionChunks(completion, body.stream_options?.include_usage === true)), {
              terminator: '[DONE]',
            })
          : new RelayedJson(found.answer.body, completion, 200)
        return
      }
      miss.inc()
      ex.headers.set(`${ex.headerPrefix}cache`, 'miss')
      await next()
      const answer = ex.reply
      if (!answer || answer.status !== 200) return
      if (answer.kind === 'json') {
        const text = jsonText(answer)
        if (text.length > config.max_entry_bytes) return
        const completion = JSON.parse(text) as unknown
        if (isCompletion(completion)) await keep(ex, key, policy, completion, text)
      } else if (answer.kind === 'events') {
        answer.events = filling(ex, answer.events, config.max_entry_bytes, async (completion) => {
          await keep(ex, key, policy, completion, JSON.stringify(completion))
        })
      }
    }

    return {
      // Not async: a model that does not use the cache hands back next()'s own promise, no hop added.
      request(ex, next) {
        const policy = policyOf(ex, ex.state.model.model)
        return policy ? cached(ex, next, policy) : next()
      },
    }
  },
})

/**
 * The cached answer under `key`, unexpired by the kernel's clock, with its completion parsed.
 * A store that fails, or an entry that does not parse (written by another version), is a miss.
 */
async function lookup(
  store: CacheStore,
  ex: Exchange,
  key: string,
  now: number,
): Promise<{ answer: CachedAnswer; completion: Json } | undefined> {
  let text: string | undefined
  try {
    text = await store.get(key, now)
  } catch (err) {
    ex.log.warn('response cache: lookup failed, served as a miss', { cause: describeCause(err) })
    return undefined
  }
  if (text === undefined) return undefined
  try {
    const answer = JSON.parse(text) as CachedAnswer
    if (!(answer.expiresAt > now) || typeof answer.body !== 'string') return undefined
    const completion = JSON.parse(answer.body) as unknown
    return isCompletion(completion) ? { answer, completion } : undefined
  } catch (err) {
    ex.log.warn('response cache: an entry did not parse, served as a miss', { cause: describeCause(err) })
    return undefined
  }
}

/**
 * The request headers that may change the answer: those the model's backend passes to its
 * server, as sent, and the gateway's own that a later step reads (`<prefix>boons: off` turns
 * the add-ons off).
 */
function answerHeaders(ex: Exchange, forwarded: readonly string[] | undefined): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const name of forwarded ?? []) {
    const value = ex.header(name)
    if (value !== undefined) headers[name] = value
  }
  const boons = ex.header(`${ex.headerPrefix}boons`)
  if (boons !== undefined) headers['gateway-boons'] = boons.trim().toLowerCase()
  return headers
}

function isCompletion(body: unknown): body is Json {
  return body !== null && typeof body === 'object' && Array.isArray((body as Json).choices)
}

/**
 * Whether an answer is whole enough to keep: every choice finished, and none cut at a length
 * the request did not ask for itself (a budget lowered it, or set one where it set none): a
 * later request, with more budget, must not get the shortened answer.
 */
function keepable(ex: Exchange, completion: Json): boolean {
  const choices = completion.choices as { finish_reason?: unknown }[]
  if (choices.length === 0 || choices.some((c) => typeof c?.finish_reason !== 'string')) return false
  const lowered = ex.usage.outputCap() < (ex.usage.demand().outputTokens ?? Infinity)
  return !(lowered && choices.some((c) => c.finish_reason === 'length'))
}

/** A cached completion's chunks, as a stream that stops when the client goes. */
async function* replay(ex: Exchange, chunks: readonly StreamEvent[]): AsyncGenerator<StreamEvent> {
  for (const chunk of chunks) {
    if (ex.signal.aborted) return
    yield chunk
  }
}

/**
 * The stream as it goes to the client, untouched, put together on the way: once it has ended
 * complete (the source finished without an error, and the client read it all), `done` gets
 * the whole completion. A stream larger than `maxBytes`, or one that cannot be put back
 * together, is only relayed.
 */
async function* filling(
  ex: Exchange,
  source: AsyncIterable<StreamItem>,
  maxBytes: number,
  done: (completion: Json) => Promise<void>,
): AsyncGenerator<StreamItem> {
  let assembler: CompletionAssembler | undefined = new CompletionAssembler()
  let bytes = 0
  for await (const item of source) {
    if (assembler) {
      const text = item instanceof SerializedEvent ? item.json : JSON.stringify(item)
      bytes += text.length
      if (bytes > maxBytes) assembler = undefined
      else assembler.push(JSON.parse(text) as StreamEvent)
    }
    yield item
  }
  const completion = assembler?.completion(openaiUsage(ex.usage.told()))
  if (completion) await done(completion)
}

/** What the client was told it used, in OpenAI's words, for a stream that did not carry it. */
function openaiUsage(used: Used): Json {
  return {
    prompt_tokens: used.inputTokens,
    completion_tokens: used.outputTokens,
    total_tokens: used.inputTokens + used.outputTokens,
    prompt_tokens_details: { cached_tokens: used.cachedTokens },
  }
}
