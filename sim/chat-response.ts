/**
 * Chat replies in vLLM's shapes (backends.md §1, §6): the `chat.completion` body, and the
 * stream — shared id and created, a role chunk first, no `usage` key on ordinary chunks, one
 * finish chunk per choice, the usage chunk with `choices: []` when asked, then `[DONE]`.
 */
import type { ChoicePlan } from './chat-plan.js'
import type { StreamScript } from './generation-run.js'
import { sseData, sseDone } from './http-io.js'
import type { ChatLogprob } from './logprobs.js'

export interface ReplyHeader {
  id: string
  created: number
  model: string
  /** `reasoning` or `reasoning_content`, as the simulated server version sends it. */
  reasoningField: string
}

export interface Usage {
  prompt_tokens: number
  total_tokens: number
  completion_tokens: number
  prompt_tokens_details: { cached_tokens: number }
}

export function usageOf(promptTokens: number, completionTokens: number, cachedTokens: number): Usage {
  return {
    prompt_tokens: promptTokens,
    total_tokens: promptTokens + completionTokens,
    completion_tokens: completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
  }
}

export function chatCompletionBody(header: ReplyHeader, plans: readonly ChoicePlan[], usage: Usage): unknown {
  return {
    id: header.id,
    object: 'chat.completion',
    created: header.created,
    model: header.model,
    choices: plans.map((plan) => ({
      index: plan.index,
      message: messageOf(plan, header.reasoningField),
      logprobs: plan.logprobs ? { content: plan.logprobs } : null,
      finish_reason: plan.finishReason,
      stop_reason: null,
    })),
    service_tier: null,
    system_fingerprint: null,
    usage,
    prompt_logprobs: null,
    kv_transfer_params: null,
  }
}

function messageOf(plan: ChoicePlan, reasoningField: string): Record<string, unknown> {
  const reasoning = plan.showReasoning && plan.reasoning.length > 0 ? plan.reasoning.join('') : null
  return {
    role: 'assistant',
    content: plan.content === null ? null : plan.content.join(''),
    refusal: null,
    annotations: null,
    audio: null,
    function_call: null,
    tool_calls: plan.toolCall
      ? [
          {
            id: plan.toolCall.id,
            type: 'function',
            function: { name: plan.toolCall.name, arguments: plan.toolCall.arguments },
          },
        ]
      : [],
    [reasoningField]: reasoning,
  }
}

interface ChunkChoice {
  index: number
  delta: Record<string, unknown>
  logprobs: { content: ChatLogprob[] } | null
  finish_reason: string | null
}

/** The token deltas of one choice, in the order they are generated. */
function tokenDeltas(plan: ChoicePlan, reasoningField: string): ChunkChoice[] {
  const out: ChunkChoice[] = []
  const index = plan.index
  if (plan.showReasoning) {
    for (const piece of plan.reasoning)
      out.push({ index, delta: { [reasoningField]: piece }, logprobs: null, finish_reason: null })
  }
  plan.content?.forEach((piece, i) => {
    const logprob = plan.logprobs?.[i]
    out.push({
      index,
      delta: { content: piece },
      logprobs: logprob ? { content: [logprob] } : null,
      finish_reason: null,
    })
  })
  const call = plan.toolCall
  if (call) {
    plan.toolCallPieces.forEach((piece, i) => {
      const toolCall =
        i === 0
          ? { index: 0, id: call.id, type: 'function', function: { name: piece, arguments: '' } }
          : { index: 0, function: { arguments: piece } }
      out.push({ index, delta: { tool_calls: [toolCall] }, logprobs: null, finish_reason: null })
    })
  }
  return out
}

export interface StreamOptions {
  includeUsage: boolean
  continuousUsage: boolean
  promptTokens: number
  cachedTokens: number
}

export function chatStreamScript(
  header: ReplyHeader,
  plans: readonly ChoicePlan[],
  options: StreamOptions,
): StreamScript {
  const base = { id: header.id, object: 'chat.completion.chunk', created: header.created, model: header.model }
  // Every chunk starts the same: serialize that part once (this is the benchmarks' hot loop).
  const prefix = `data: ${JSON.stringify(base).slice(0, -1)},"choices":[`
  let emitted = 0
  // With continuous_usage_stats every chunk carries the usage so far; otherwise no usage key at all.
  const chunk = (choices: [ChunkChoice]): string => {
    if (!options.continuousUsage) return `${prefix}${JSON.stringify(choices[0])}]}\n\n`
    return sseData({ ...base, choices, usage: usageOf(options.promptTokens, emitted, options.cachedTokens) })
  }
  const opening = plans.map((plan) =>
    chunk([{ index: plan.index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]),
  )
  const perChoice = plans.map((plan) => tokenDeltas(plan, header.reasoningField))
  const steps: string[][] = []
  const longest = Math.max(0, ...perChoice.map((deltas) => deltas.length))
  // n > 1: choices advance together, one token each per step, as a batch does on a GPU.
  for (let step = 0; step < longest; step++) {
    const row: string[] = []
    for (const deltas of perChoice) {
      const choice = deltas[step]
      if (!choice) continue
      emitted++
      row.push(chunk([choice]))
    }
    steps.push(row)
  }
  const completionTokens = plans.reduce((sum, plan) => sum + plan.completionTokens, 0)
  emitted = completionTokens
  const closing = plans.map((plan) =>
    chunk([{ index: plan.index, delta: {}, logprobs: null, finish_reason: plan.finishReason }]),
  )
  if (options.includeUsage) {
    closing.push(
      sseData({ ...base, choices: [], usage: usageOf(options.promptTokens, completionTokens, options.cachedTokens) }),
    )
  }
  closing.push(sseDone)
  return { opening, steps, closing }
}
