/**
 * Token figures known before a model answers, and while it streams. Budgets reserve against
 * the prompt estimate, so it is an upper bound for text: a token of the usual tokenizers
 * covers at least one UTF-8 byte, so the byte count never undercounts it; each message adds
 * the few tokens of a chat template's framing. Images are estimated per image (configurable),
 * since their token count depends on the model.
 */

/** Tokens a chat template adds around each message (ChatML's framing is 4 to 8). */
export const TOKENS_PER_MESSAGE = 8

export interface PromptEstimateOptions {
  /** Tokens a chat template adds around each message. */
  perMessage: number
  /** Tokens counted for each image part. */
  perImage: number
}

/**
 * UTF-8 bytes of a text: an upper bound of its tokens. Counted, not encoded (TextEncoder made a
 * copy of each text: 60 MB for a 60 MiB message); short ASCII is counted without the call.
 */
export const utf8Bytes = (text: string) =>
  text.length < 64 && /^[\x00-\x7f]*$/.test(text) ? text.length : Buffer.byteLength(text, 'utf8')
const bytes = utf8Bytes

/** An upper bound of the prompt tokens of a chat or completions request body. */
export function estimatePromptTokens(body: unknown, options: PromptEstimateOptions): number {
  if (!body || typeof body !== 'object') return 0
  const b = body as { messages?: unknown; prompt?: unknown; tools?: unknown }
  let total = 8
  if (Array.isArray(b.messages)) {
    for (const m of b.messages) total += options.perMessage + messageTokens(m, options)
  }
  if (typeof b.prompt === 'string') total += bytes(b.prompt)
  else if (Array.isArray(b.prompt)) {
    for (const p of b.prompt)
      total += typeof p === 'number' ? 1 : typeof p === 'string' ? bytes(p) : Array.isArray(p) ? p.length : 0
  }
  if (Array.isArray(b.tools) && b.tools.length > 0) total += bytes(JSON.stringify(b.tools))
  return total
}

function messageTokens(message: unknown, options: PromptEstimateOptions): number {
  if (!message || typeof message !== 'object') return 0
  const m = message as { content?: unknown; tool_calls?: unknown; name?: unknown }
  let n = 0
  if (typeof m.content === 'string') n += bytes(m.content)
  else if (Array.isArray(m.content)) {
    for (const part of m.content as { type?: unknown; text?: unknown }[]) {
      if (part?.type === 'text' && typeof part.text === 'string') n += bytes(part.text)
      else if (part?.type === 'image_url') n += options.perImage
      else if (part && typeof part === 'object') n += bytes(JSON.stringify(part))
    }
  }
  if (m.tool_calls !== undefined) n += bytes(JSON.stringify(m.tool_calls))
  if (typeof m.name === 'string') n += bytes(m.name)
  return n
}

/** The reply length a request asks for: tokens per choice (undefined when it sets none) and choices. */
export function requestedCompletion(body: unknown): { perChoice: number | undefined; choices: number } {
  const b = (body ?? {}) as { max_tokens?: unknown; max_completion_tokens?: unknown; n?: unknown }
  const asked =
    typeof b.max_completion_tokens === 'number'
      ? b.max_completion_tokens
      : typeof b.max_tokens === 'number'
        ? b.max_tokens
        : undefined
  const choices = typeof b.n === 'number' && Number.isInteger(b.n) && b.n > 0 ? b.n : 1
  return { perChoice: asked, choices }
}

/**
 * Generated pieces in one streamed chat or completions chunk (one per choice that carries
 * content, reasoning or a tool call): the token count of a stream that ends without usage.
 */
export function streamedTokens(event: Record<string, unknown>): number {
  const choices = event.choices
  if (!Array.isArray(choices)) return 0
  let n = 0
  for (const c of choices as {
    delta?: { content?: unknown; reasoning?: unknown; tool_calls?: unknown }
    text?: unknown
  }[]) {
    const d = c?.delta
    if (
      d &&
      ((typeof d.content === 'string' && d.content !== '') ||
        (typeof d.reasoning === 'string' && d.reasoning !== '') ||
        d.tool_calls !== undefined)
    )
      n++
    else if (typeof c?.text === 'string' && c.text !== '') n++
  }
  return n
}
