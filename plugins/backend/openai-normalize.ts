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

/** Whether the target was changed. */
function renameReasoning(target: unknown): boolean {
  if (!target || typeof target !== 'object') return false
  const t = target as Json
  if (!('reasoning_content' in t)) return false
  if (t.reasoning === undefined || t.reasoning === null) t.reasoning = t.reasoning_content
  delete t.reasoning_content
  return true
}

export function normalizeUsage(usage: unknown): Usage | undefined {
  if (!usage || typeof usage !== 'object') return undefined
  const u = usage as Usage
  if (!u.prompt_tokens_details) u.prompt_tokens_details = { cached_tokens: 0 }
  else if (u.prompt_tokens_details.cached_tokens === undefined) u.prompt_tokens_details.cached_tokens = 0
  return u
}

/**
 * Normalizes a whole (non-streamed) completion in place: its usage, and whether anything
 * changed (unchanged, the reply can leave as the server wrote it).
 */
export function normalizeCompletion(body: Json): { usage: Usage | undefined; changed: boolean } {
  let changed = false
  const choices = body.choices
  if (Array.isArray(choices)) for (const c of choices) changed = renameReasoning((c as Json).message) || changed
  const details = (body.usage as Usage | undefined)?.prompt_tokens_details
  if (body.usage && typeof body.usage === 'object' && (!details || details.cached_tokens === undefined)) changed = true
  return { usage: normalizeUsage(body.usage), changed }
}

/** Normalizes one stream chunk in place. */
export function normalizeChunk(chunk: Json): void {
  const choices = chunk.choices
  if (Array.isArray(choices)) for (const c of choices) renameReasoning((c as Json).delta)
  if (chunk.usage) normalizeUsage(chunk.usage)
}
