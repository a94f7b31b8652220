/**
 * Smooths the differences between OpenAI-compatible model servers on the way back:
 * `reasoning_content` (SGLang, llama.cpp, vLLM ≤ 0.11) becomes `reasoning`, and a missing or
 * null `prompt_tokens_details` becomes `{cached_tokens: 0}`.
 */
export interface Usage {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
  prompt_tokens_details?: { cached_tokens?: number } | null
}

type Json = Record<string, unknown>

function renameReasoning(target: unknown): void {
  if (!target || typeof target !== 'object') return
  const t = target as Json
  if ('reasoning_content' in t) {
    if (t.reasoning === undefined || t.reasoning === null) t.reasoning = t.reasoning_content
    delete t.reasoning_content
  }
}

export function normalizeUsage(usage: unknown): Usage | undefined {
  if (!usage || typeof usage !== 'object') return undefined
  const u = usage as Usage
  if (!u.prompt_tokens_details) u.prompt_tokens_details = { cached_tokens: 0 }
  else if (u.prompt_tokens_details.cached_tokens === undefined) u.prompt_tokens_details.cached_tokens = 0
  return u
}

/** Normalizes a whole (non-streamed) completion in place. */
export function normalizeCompletion(body: Json): Usage | undefined {
  const choices = body.choices
  if (Array.isArray(choices)) for (const c of choices) renameReasoning((c as Json).message)
  return normalizeUsage(body.usage)
}

/** Normalizes one stream chunk in place. */
export function normalizeChunk(chunk: Json): void {
  const choices = chunk.choices
  if (Array.isArray(choices)) for (const c of choices) renameReasoning((c as Json).delta)
  if (chunk.usage) normalizeUsage(chunk.usage)
}
