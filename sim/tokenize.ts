/** vLLM's POST /tokenize and POST /detokenize, on the simulator's tokenizer. */
import type { ServerResponse } from 'node:http'
import { SimError } from './api-error.js'
import { optionalArray, optionalBoolean, optionalString } from './body-fields.js'
import { readMessages } from './chat-request.js'
import { requireJsonObject } from './chat.js'
import { sendJson } from './http-io.js'
import { chatPromptTokens, textPromptTokens } from './prompt.js'
import type { SimModelConfig } from './schema.js'
import type { SimContext } from './sim-context.js'
import { decodeTokens, tokenStrings } from './tokens.js'

/** `model` is optional on these endpoints: without it, the first model answers. */
function modelFor(sim: SimContext, name: string | undefined): SimModelConfig {
  return name === undefined ? sim.defaultModel() : sim.engine(name).model
}

export function handleTokenize(sim: SimContext, res: ServerResponse, body: unknown): void {
  const json = requireJsonObject(body)
  const model = modelFor(sim, optionalString(json, 'model'))
  const messages = optionalArray(json, 'messages')
  let tokens: number[]
  if (messages) {
    const tools = optionalArray(json, 'tools')
    tokens = chatPromptTokens(
      readMessages(messages),
      tools && tools.length > 0 ? JSON.stringify(tools) : '',
      optionalBoolean(json, 'add_generation_prompt') ?? true,
    )
  } else {
    const prompt = optionalString(json, 'prompt')
    if (prompt === undefined) throw new SimError(400, 'Either `prompt` or `messages` must be given.', 'prompt')
    tokens = textPromptTokens(prompt, optionalBoolean(json, 'add_special_tokens') ?? true)
  }
  sendJson(res, 200, {
    count: tokens.length,
    max_model_len: model.max_model_len,
    tokens,
    token_strs: optionalBoolean(json, 'return_token_strs') ? tokenStrings(tokens) : null,
  })
}

export function handleDetokenize(sim: SimContext, res: ServerResponse, body: unknown): void {
  const json = requireJsonObject(body)
  modelFor(sim, optionalString(json, 'model'))
  const tokens = optionalArray(json, 'tokens')
  if (!tokens || !tokens.every((id) => Number.isInteger(id))) {
    throw new SimError(400, 'tokens: Input should be a list of integers', 'tokens')
  }
  sendJson(res, 200, { prompt: decodeTokens(tokens as number[]) })
}
