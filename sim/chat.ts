/** POST /v1/chat/completions */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { SimError } from './api-error.js'
import { isObject, type JsonObject } from './body-fields.js'
import { planChatChoice, type ChoicePlan } from './chat-plan.js'
import { readChatRequest, type ChatRequest } from './chat-request.js'
import { chatCompletionBody, chatStreamScript, usageOf, type ReplyHeader } from './chat-response.js'
import { outputLimit } from './context-window.js'
import { planFailure } from './failures.js'
import { runGeneration } from './generation-run.js'
import { responseId, unixSeconds } from './ids.js'
import { chatPromptTokens } from './prompt.js'
import { requireKind, type SimContext } from './sim-context.js'

export function handleChatCompletions(
  sim: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  arrival: number,
): void | Promise<void> {
  const json = requireJsonObject(body)
  const failure = planFailure(req.headers, sim.settings.failure, sim.random, modelNameOf(json))
  if (failure.error) throw failure.error
  const request = readChatRequest(json)
  const engine = sim.engine(request.model)
  requireKind(engine, 'chat', 'Chat Completions')
  checkImageUrls(request)
  const promptIds = chatPromptTokens(request.messages, request.toolsText)
  const limit = outputLimit(promptIds.length, request.maxTokens, engine.model.max_model_len)
  const plans: ChoicePlan[] = []
  for (let index = 0; index < request.n; index++) {
    plans.push(planChatChoice({ request, model: engine.model, outputLimit: limit, seed: sim.config.seed, index }))
  }
  const completionTokens = plans.reduce((sum, plan) => sum + plan.completionTokens, 0)
  const header: ReplyHeader = {
    id: responseId('chatcmpl'),
    created: unixSeconds(),
    model: engine.model.name,
    reasoningField: engine.model.reasoning_field,
  }
  return runGeneration(
    {
      engine,
      prompts: [promptIds],
      completionTokens,
      tokenSteps: Math.max(...plans.map(streamedTokens)),
      // The engine only knows stop and length; tool calls are a parser's reading of a normal stop.
      finishedReason: plans.some((plan) => plan.finishReason === 'length') ? 'length' : 'stop',
      stream: request.stream,
      json: (ticket) =>
        chatCompletionBody(header, plans, usageOf(promptIds.length, completionTokens, ticket.cachedTokens)),
      script: (ticket) =>
        chatStreamScript(header, plans, {
          includeUsage: request.includeUsage,
          continuousUsage: request.continuousUsage,
          promptTokens: promptIds.length,
          cachedTokens: ticket.cachedTokens,
        }),
    },
    sim.runEnv(req, res, failure, arrival, engine.model),
  )
}

function streamedTokens(plan: ChoicePlan): number {
  return (plan.showReasoning ? plan.reasoning.length : 0) + (plan.content?.length ?? 0) + plan.toolCallPieces.length
}

export function requireJsonObject(body: unknown): JsonObject {
  if (!isObject(body)) throw new SimError(400, 'Invalid request: the body must be a JSON object.')
  return body
}

/** For failure messages that name the model, before the body is validated. */
export function modelNameOf(body: JsonObject): string {
  return typeof body.model === 'string' ? body.model : 'unknown'
}

/**
 * The simulator fetches nothing. An https URL whose host contains `unfetchable` fails the way a
 * real server's media fetch fails, so the gateway's pass-through of that error can be tested.
 */
function checkImageUrls(request: ChatRequest): void {
  for (const message of request.messages) {
    for (const url of message.imageUrls) {
      if (isUnfetchable(url)) throw new SimError(422, 'Failed to fetch media from URL')
    }
  }
}

function isUnfetchable(url: string): boolean {
  if (!url.startsWith('https://')) return false
  try {
    return new URL(url).hostname.includes('unfetchable')
  } catch {
    return false
  }
}
