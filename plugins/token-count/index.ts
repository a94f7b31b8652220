/**
 * token-count: answers `{"input_tokens": N}` for a chat body (messages, tools) on the resolved
 * model, counted by the model server's own tokenizer through vLLM's `POST /tokenize` (the
 * simulator has it too), so the count is the one the model will report as prompt tokens.
 * Servers without it get the gateway's estimate (or an error, per `fallback`). No model runs:
 * the count is not budgeted, queued or recorded, as Anthropic does not charge for it.
 *
 * A body with `texts` (named pieces of plain text, as the Query service sends to break a prompt
 * down by part) gets `{"counts": {name: N}}`: each piece by /tokenize without special tokens,
 * in parallel; without a server tokenizer, by the local cl100k_base tokenizer.
 */
import {
  GatewayError,
  definePlugin,
  reply,
  type Kernel,
  type Narrowed,
  type UpstreamText,
} from '../../kernel/contract/index.js'
import { estimatePromptTokens, TOKENS_PER_MESSAGE } from '../../protocols/openai/token-estimate.js'
import { countTokens } from '../../domains/query/knowledge/tokens.js'
import { declaredSize, isLargeBody, jsonBytesInTurns } from '../../protocols/http/large-json-write.js'
import { configSchema } from './schema.js'

type Body = { messages?: unknown; tools?: unknown[] }

export default definePlugin({
  name: 'token-count',
  config: configSchema,
  requires: ['model'],
  provides: [],
  setup(config, kernel) {
    return {
      async request(ex) {
        const texts = (ex.body as { texts?: unknown }).texts
        if (texts !== undefined) {
          ex.reply = reply.json(await countTexts(ex, kernel, readTexts(texts), config.fallback === 'error'))
          return
        }
        let count: number
        let method: 'tokenizer' | 'estimate'
        try {
          count = await tokenizerCount(ex, kernel)
          method = 'tokenizer'
        } catch (err) {
          if (config.fallback === 'error' || ex.signal.aborted) throw err
          ex.log.debug('token count by estimate: the model server did not count', {
            cause: err instanceof Error ? err.message : String(err),
          })
          count = estimatePromptTokens(ex.body, {
            perMessage: TOKENS_PER_MESSAGE,
            perImage: ex.state.model.model.tokens_per_image ?? 1024,
          })
          method = 'estimate'
        }
        ex.headers.set(`${ex.headerPrefix}token-count`, method)
        ex.reply = reply.json({ input_tokens: count })
      },
    }
  },
})

function readTexts(texts: unknown): Record<string, string> {
  const ok =
    texts !== null &&
    typeof texts === 'object' &&
    !Array.isArray(texts) &&
    Object.values(texts).every((t) => typeof t === 'string')
  if (!ok) throw new GatewayError(400, 'texts must be an object of strings', { code: 'invalid_request' })
  return texts as Record<string, string>
}

/** Each named text by the server's tokenizer; all by the local one when the server cannot count. */
async function countTexts(
  ex: Narrowed<'model'>,
  kernel: Kernel,
  texts: Record<string, string>,
  strict: boolean,
): Promise<{ counts: Record<string, number>; method: 'tokenizer' | 'local' }> {
  const model = ex.state.model.model
  const names = Object.keys(texts)
  try {
    const counts = await Promise.all(
      names.map(async (name) => {
        if (texts[name] === '') return 0
        const body = JSON.stringify({
          model: model.served_name ?? model.id,
          prompt: texts[name],
          add_special_tokens: false,
        })
        const res = await kernel.backends.callText(ex, {
          model,
          path: '/tokenize',
          body,
          accept: 'application/json',
          refit: ownTokenizer,
        })
        return countOf(res)
      }),
    )
    return { counts: Object.fromEntries(names.map((n, i) => [n, counts[i]!])), method: 'tokenizer' }
  } catch (err) {
    if (strict || ex.signal.aborted) throw err
    return { counts: Object.fromEntries(names.map((n) => [n, countTokens(texts[n]!)])), method: 'local' }
  }
}

/** A count is the model's own tokenizer's: a fallback model (models.yaml `fallbacks`) never counts for it. */
function ownTokenizer(): undefined {
  return undefined
}

/** vLLM's /tokenize with the chat messages: `{"count": N, ...}`. */
async function tokenizerCount(ex: Narrowed<'model'>, kernel: Kernel): Promise<number> {
  const model = ex.state.model.model
  const body = ex.body as Body
  const request: Record<string, unknown> = {
    model: model.served_name ?? model.id,
    messages: body.messages,
    add_generation_prompt: true,
  }
  if (body.tools !== undefined && body.tools.length > 0) request.tools = body.tools
  const res = await kernel.backends.callText(ex, {
    model,
    path: '/tokenize',
    // A large body is encoded in turns (30 MiB took the loop 0.13 s in one); a small one at once, with no await.
    body: isLargeBody(request, ex.header('content-length'))
      ? await jsonBytesInTurns(request, declaredSize(ex.header('content-length')))
      : JSON.stringify(request),
    accept: 'application/json',
    refit: ownTokenizer,
  })
  return countOf(res)
}

/**
 * `COUNT_KEY`'s first match, tried where the bytes hold `"count"` (each time on the next 256
 * bytes alone), as the pattern would find it in the whole text.
 */
function countKey(bytes: Buffer): RegExpExecArray | null {
  for (let at = bytes.indexOf('"count"'); at >= 0; at = bytes.indexOf('"count"', at + 1)) {
    const found = COUNT_KEY.exec(bytes.toString('utf8', at, Math.min(bytes.length, at + 256)))
    if (found?.index === 0) return found
  }
  return null
}

/** A /tokenize answer's size from which its count is read without parsing it. */
const LARGE_ANSWER = 1 << 16
/** The top-level key: inside a JSON string a quote is escaped, so `"count":` there is a key. */
const COUNT_KEY = /"count"\s*:\s*(\d+)\s*[,}]/

/**
 * The count of a /tokenize answer. vLLM's lists every token id too: for a 30 MiB prompt that is
 * 60 MB of JSON, and parsing it held the event loop for 0.8 s (half of it the collector) to read
 * one number; a large answer has its `count` read by a pattern instead (vLLM writes no other),
 * in the text around the key found in its bytes (decoding all 60 MB took the loop 60 ms).
 */
function countOf(answer: UpstreamText): number {
  const found = answer.bytes.length > LARGE_ANSWER ? countKey(answer.bytes) : null
  const count = found ? Number(found[1]) : (JSON.parse(answer.text) as { count?: unknown }).count
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0)
    throw new GatewayError(502, 'the model server answered /tokenize without a count', { code: 'upstream_failed' })
  return count
}
