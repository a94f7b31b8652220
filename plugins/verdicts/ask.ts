/**
 * One question, one model call through the chat route (so it is queued fairly, mapped and
 * recorded like a client request): one token, greedy, the top 20 logprobs. A model whose first
 * token is thinking is asked once more with thinking skipped; both calls count in the usage.
 */
import { GatewayError, type Kernel, type Principal, type Usage } from '../../kernel/contract/index.js'
import type { ModelConfig } from '../../schemas/models.schema.js'
import { LabelReader } from './labels.js'
import { questionMessage, type ChatMessage } from './prompt.js'
import { labelMass, scoreMass, type Scored } from './scoring.js'
import { readReply, type CallUsage, type ReadReply } from './reply-reading.js'
import { failures, questionFailure } from './failures.js'
import type { ModelChoice } from './model-choice.js'
import type { Question } from './question.js'

/** vLLM's and OpenAI's cap on top_logprobs; the spec's "top 20 first tokens". */
export const TOP_LOGPROBS = 20

export interface AskContext {
  readonly kernel: Kernel
  readonly route: string
  readonly principal: Principal | undefined
  readonly signal: AbortSignal
  readonly parentId: string
  /** The verdicts request's usage: each call's usage is told to the client, so recorded there too. */
  readonly told: Usage
  readonly choice: ModelChoice
  readonly shared: readonly ChatMessage[]
}

export interface Answer {
  readonly scored: Scored
  /** Usage of every call made for the question. */
  readonly usage: CallUsage
  readonly calls: number
  readonly reportedModel: string | undefined
  /** Response headers the chat route set on the last call (deprecation notices …). */
  readonly headers: ReadonlyMap<string, string>
}

type ChatBody = Record<string, unknown>

/**
 * The retry's way of skipping thinking: the model's own `none` level when it maps one (the
 * reasoning step turns it into whatever that server needs), else Qwen3's switch, which vLLM
 * and SGLang pass to the chat template and which wins over reasoning_effort.
 */
export function withoutThinking(body: ChatBody, model: ModelConfig | undefined): ChatBody {
  const mapsNone = model?.reasoning?.mode === 'mapped' && model.reasoning.levels?.none !== undefined
  if (mapsNone && body.reasoning_effort !== 'none') return { ...body, reasoning_effort: 'none' }
  const kwargs = (body.chat_template_kwargs as Record<string, unknown> | undefined) ?? {}
  return { ...body, chat_template_kwargs: { ...kwargs, enable_thinking: false } }
}

function addUsage(a: CallUsage, b: CallUsage): CallUsage {
  return {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
    cached_tokens: a.cached_tokens + b.cached_tokens,
  }
}

async function call(
  ctx: AskContext,
  body: ChatBody,
): Promise<{ read: ReadReply; headers: ReadonlyMap<string, string> }> {
  let result
  try {
    result = await ctx.kernel.call(ctx.route, body, {
      principal: ctx.principal,
      signal: ctx.signal,
      parentId: ctx.parentId,
    })
  } catch (err) {
    throw questionFailure(err)
  }
  if (result.usage.model !== undefined) ctx.told.relay(result.usage.used(), result.usage.model)
  const { reply } = result
  if (reply.kind !== 'json' || reply.status !== 200)
    throw new GatewayError(502, 'upstream request failed', {
      code: 'upstream_failed',
      cause: new Error(`chat route replied ${reply.kind} ${reply.status}`),
    })
  return { read: readReply(reply.body), headers: result.headers }
}

export async function askQuestion(ctx: AskContext, q: Question): Promise<Answer> {
  const body: ChatBody = {
    ...ctx.choice.request,
    messages: [...ctx.shared, questionMessage(q)],
    max_tokens: 1,
    temperature: 0,
    logprobs: true,
    top_logprobs: TOP_LOGPROBS,
  }
  let { read, headers } = await call(ctx, body)
  let usage = read.usage
  let calls = 1
  if (read.first.kind === 'thinking') {
    ;({ read, headers } = await call(ctx, withoutThinking(body, ctx.choice.model)))
    usage = addUsage(usage, read.usage)
    calls++
  }
  const first = read.first
  if (first.kind === 'no-logprobs') throw failures.noLogprobs()
  // Still thinking after the retry: the model gave no label.
  if (first.kind === 'thinking') throw failures.noLabel()
  const scored = scoreMass(labelMass(first.candidates, new LabelReader(q.labels)))
  if (!scored) throw failures.noLabel()
  return { scored, usage, calls, reportedModel: read.reportedModel, headers }
}
