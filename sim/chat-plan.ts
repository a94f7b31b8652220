/**
 * What one chat choice will say, decided before the first byte is sent: reasoning tokens,
 * then either content tokens or one tool call, the finish reason and the logprobs. Everything
 * derives from a generator seeded by the prompt, so the same request gets the same reply, and
 * the plan is the single source of both the streamed pieces and the usage count.
 */
import type { ChatRequest } from './chat-request.js'
import { jsonFromSchema } from './json-from-schema.js'
import { chatLogprobs, type ChatLogprob } from './logprobs.js'
import { reasoningTokenCount, thinkingEnabled } from './reasoning.js'
import type { SimModelConfig } from './schema.js'
import { hashString, SeededRandom } from './seeded-random.js'
import { answerWords, responseLength, shortPhrase, thinkingWords } from './text-generation.js'
import { charsPerToken, splitFixed, splitWords } from './tokens.js'
import { chooseTool, lastUserText, planToolCall, toolResultQuote, type PlannedToolCall } from './tools.js'
import { planVerdictAnswer } from './verdict-answers.js'

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls'

export interface ChoicePlan {
  index: number
  /** Reasoning tokens; sent only when the request keeps `include_reasoning`. */
  reasoning: string[]
  showReasoning: boolean
  /** Content tokens; null when a tool call takes the content's place. */
  content: string[] | null
  toolCall: PlannedToolCall | undefined
  /** The tool call as streamed: its name, then its arguments four characters at a time. */
  toolCallPieces: string[]
  finishReason: ChatFinishReason
  logprobs: ChatLogprob[] | undefined
  completionTokens: number
}

export interface ChatPlanInput {
  request: ChatRequest
  model: SimModelConfig
  /** Output tokens this choice may use: max_tokens, or what the context window leaves. */
  outputLimit: number
  seed: number
  index: number
}

export function planChatChoice(input: ChatPlanInput): ChoicePlan {
  const { request, model, outputLimit, index } = input
  const random = new SeededRandom(hashString(`${model.name}\n${request.promptKey}`, input.seed + index))
  const plan: ChoicePlan = {
    index,
    reasoning: [],
    showReasoning: request.thinking.includeReasoning,
    content: [],
    toolCall: undefined,
    toolCallPieces: [],
    finishReason: 'stop',
    logprobs: undefined,
    completionTokens: 0,
  }
  if (thinkingEnabled(model, request.thinking)) {
    const wanted = reasoningTokenCount(request.thinking)
    plan.reasoning = thinkingWords(random, Math.min(wanted, outputLimit))
    // Thinking used the whole allowance: the answer never started.
    if (wanted >= outputLimit) return finish(plan, 'length', request, random)
  }
  // A verdict prompt (one token, top logprobs, a label line) is answered with a label.
  const verdict = planVerdictAnswer(request, random)
  if (verdict) {
    plan.content = [verdict.token]
    finish(plan, 'length', request, random)
    plan.logprobs = verdict.logprobs
    return plan
  }
  const remaining = outputLimit - plan.reasoning.length
  const tool = chooseTool(request)
  if (tool) {
    plan.content = null
    // The name is one token; the arguments get what is left of the limit.
    plan.toolCall = planToolCall(
      tool.tool,
      tool.finishReason,
      random,
      Math.max(0, remaining - 1) * charsPerToken,
      lastUserText(request),
    )
    plan.toolCallPieces = [plan.toolCall.name, ...splitFixed(plan.toolCall.arguments)]
    return finish(plan, plan.toolCall.finishReason, request, random)
  }
  const { pieces, natural, cut } = contentPieces(request, random, remaining)
  plan.content = pieces.slice(0, remaining)
  const truncated =
    cut ||
    pieces.length > remaining ||
    (!natural && plan.content.length === remaining && request.maxTokens !== undefined)
  return finish(plan, truncated ? 'length' : 'stop', request, random)
}

/**
 * The answer's tokens. `natural` is true when the text has its own end (JSON, a choice), so
 * reaching the limit exactly is still a normal stop; drawn text that fills max_tokens is `length`,
 * as in llm-d. `cut` is true when generation itself stopped at the limit (a schema asking for
 * more than it allows).
 */
function contentPieces(
  request: ChatRequest,
  random: SeededRandom,
  remaining: number,
): { pieces: string[]; natural: boolean; cut?: boolean } {
  const format = request.responseFormat
  switch (format.kind) {
    case 'json_schema': {
      // Generated only up to what the limit allows: a schema may ask for gigabytes.
      const json = jsonFromSchema(format.schema, random, remaining * charsPerToken)
      return { pieces: splitFixed(json.text), natural: true, cut: !json.complete }
    }
    case 'json_object':
      return { pieces: splitFixed(JSON.stringify({ answer: shortPhrase(random, 6) })), natural: true }
    case 'choice':
      return { pieces: splitWords(random.pick(format.choices.length > 0 ? format.choices : [''])), natural: true }
    case 'text': {
      const quote = toolResultQuote(request)
      const lead = quote === undefined ? [] : splitWords(`The tool returned: ${quote}`)
      const limit = request.maxTokens === undefined ? undefined : Math.max(1, remaining)
      const length = request.ignoreEos && limit !== undefined ? limit : responseLength(random, limit)
      const words = answerWords(random, Math.min(length, Math.max(1, remaining)))
      if (lead.length > 0 && words[0] !== undefined) words[0] = ` ${words[0]}`
      return { pieces: [...lead, ...words], natural: false }
    }
  }
}

function finish(plan: ChoicePlan, reason: ChatFinishReason, request: ChatRequest, random: SeededRandom): ChoicePlan {
  plan.finishReason = reason
  plan.completionTokens = plan.reasoning.length + (plan.content?.length ?? 0) + plan.toolCallPieces.length
  if (request.logprobs && plan.content) plan.logprobs = chatLogprobs(plan.content, request.topLogprobs, random)
  return plan
}
