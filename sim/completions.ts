/** POST /v1/completions, for models configured with `completions: true`. */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { SimError } from './api-error.js'
import { modelNameOf, requireJsonObject } from './chat.js'
import { usageOf } from './chat-response.js'
import { readCompletionRequest } from './completion-request.js'
import { outputLimit } from './context-window.js'
import { planFailure } from './failures.js'
import { runGeneration, type StreamScript } from './generation-run.js'
import { sseData, sseDone } from './http-io.js'
import { responseId, unixSeconds } from './ids.js'
import { completionLogprobs, type CompletionLogprobs } from './logprobs.js'
import { textPromptTokens } from './prompt.js'
import { hashString, SeededRandom } from './seeded-random.js'
import { requireKind, type SimContext } from './sim-context.js'
import { answerWords, responseLength } from './text-generation.js'

interface TextChoicePlan {
  index: number
  tokens: string[]
  finishReason: 'stop' | 'length'
  logprobs: CompletionLogprobs | undefined
}

export function handleCompletions(
  sim: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  arrival: number,
): void | Promise<void> {
  const json = requireJsonObject(body)
  const failure = planFailure(req.headers, sim.settings.failure, sim.random, modelNameOf(json))
  if (failure.error) throw failure.error
  const request = readCompletionRequest(json)
  const engine = sim.engine(request.model)
  requireKind(engine, 'chat', 'Completions')
  if (!engine.model.completions) throw new SimError(400, 'The model does not support Completions API')
  const prompts = request.prompts.map((prompt) => textPromptTokens(prompt))
  const plans: TextChoicePlan[] = []
  prompts.forEach((ids, promptIndex) => {
    const limit = outputLimit(ids.length, request.maxTokens, engine.model.max_model_len)
    const key = `${engine.model.name}\n${ids.join(',')}${request.seed === undefined ? '' : `#${request.seed}`}`
    for (let i = 0; i < request.n; i++) {
      plans.push(planTextChoice(key, promptIndex * request.n + i, limit, request.logprobs, sim.config.seed))
    }
  })
  const promptTokens = prompts.reduce((sum, ids) => sum + ids.length, 0)
  const completionTokens = plans.reduce((sum, plan) => sum + plan.tokens.length, 0)
  const header = { id: responseId('cmpl'), created: unixSeconds(), model: engine.model.name }
  return runGeneration(
    {
      engine,
      prompts,
      completionTokens,
      tokenSteps: Math.max(...plans.map((plan) => plan.tokens.length)),
      finishedReason: plans.some((plan) => plan.finishReason === 'length') ? 'length' : 'stop',
      stream: request.stream,
      json: (ticket) => completionBody(header, plans, usageOf(promptTokens, completionTokens, ticket.cachedTokens)),
      script: (ticket) =>
        completionStreamScript(
          header,
          plans,
          request.includeUsage ? usageOf(promptTokens, completionTokens, ticket.cachedTokens) : undefined,
        ),
    },
    sim.runEnv(req, res, failure, arrival, engine.model),
  )
}

function planTextChoice(
  key: string,
  index: number,
  limit: number,
  logprobs: number | undefined,
  seed: number,
): TextChoicePlan {
  const random = new SeededRandom(hashString(key, seed + index))
  const count = Math.min(limit, responseLength(random, limit))
  const tokens = answerWords(random, count)
  return {
    index,
    tokens,
    finishReason: count === limit ? 'length' : 'stop',
    logprobs: logprobs === undefined ? undefined : completionLogprobs(tokens, logprobs, 0, random),
  }
}

interface Header {
  id: string
  created: number
  model: string
}

function completionBody(header: Header, plans: readonly TextChoicePlan[], usage: unknown): unknown {
  return {
    id: header.id,
    object: 'text_completion',
    created: header.created,
    model: header.model,
    choices: plans.map((plan) => ({
      index: plan.index,
      text: plan.tokens.join(''),
      logprobs: plan.logprobs ?? null,
      finish_reason: plan.finishReason,
      stop_reason: null,
      prompt_logprobs: null,
    })),
    service_tier: null,
    system_fingerprint: null,
    usage,
    kv_transfer_params: null,
  }
}

/** The legacy stream: no role chunk; each chunk is `{text}` with the token's slice of the logprobs. */
function completionStreamScript(header: Header, plans: readonly TextChoicePlan[], usage: unknown): StreamScript {
  const base = { id: header.id, object: 'text_completion', created: header.created, model: header.model }
  const choiceChunk = (
    index: number,
    text: string,
    logprobs: CompletionLogprobs | null,
    finishReason: string | null,
  ): string =>
    sseData({ ...base, choices: [{ index, text, logprobs, finish_reason: finishReason, stop_reason: null }] })
  const steps: string[][] = []
  const longest = Math.max(0, ...plans.map((plan) => plan.tokens.length))
  for (let step = 0; step < longest; step++) {
    const row: string[] = []
    for (const plan of plans) {
      const token = plan.tokens[step]
      if (token === undefined) continue
      row.push(choiceChunk(plan.index, token, plan.logprobs ? sliceLogprobs(plan.logprobs, step) : null, null))
    }
    steps.push(row)
  }
  const closing = plans.map((plan) => choiceChunk(plan.index, '', null, plan.finishReason))
  if (usage !== undefined) closing.push(sseData({ ...base, choices: [], usage }))
  closing.push(sseDone)
  return { opening: [], steps, closing }
}

function sliceLogprobs(logprobs: CompletionLogprobs, step: number): CompletionLogprobs {
  return {
    tokens: logprobs.tokens.slice(step, step + 1),
    token_logprobs: logprobs.token_logprobs.slice(step, step + 1),
    top_logprobs: logprobs.top_logprobs.slice(step, step + 1),
    text_offset: logprobs.text_offset.slice(step, step + 1),
  }
}
