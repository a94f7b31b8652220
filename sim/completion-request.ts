/** The legacy completions request (`/v1/completions`): prompt in, text out. */
import { SimError } from './api-error.js'
import {
  checkLogprobsCount,
  optionalBoolean,
  optionalInteger,
  readMaxTokens,
  readN,
  readStreamFlags,
  requiredString,
  type JsonObject,
} from './body-fields.js'

export interface CompletionRequest {
  model: string
  /** One entry per prompt: text, or token ids. */
  prompts: Array<string | number[]>
  stream: boolean
  includeUsage: boolean
  continuousUsage: boolean
  maxTokens: number
  n: number
  /** Alternatives per token (the legacy integer form), or undefined without logprobs. */
  logprobs: number | undefined
  seed: number | undefined
}

/** OpenAI's and vLLM's default for the legacy endpoint. */
const defaultMaxTokens = 16

export function readCompletionRequest(body: JsonObject): CompletionRequest {
  const flags = readStreamFlags(body)
  const logprobs = optionalInteger(body, 'logprobs')
  if (logprobs !== undefined) checkLogprobsCount(logprobs, 'logprobs')
  if (optionalBoolean(body, 'echo')) throw new SimError(400, 'echo is not supported by the simulator.', 'echo')
  return {
    model: requiredString(body, 'model'),
    prompts: readPrompts(body.prompt),
    ...flags,
    maxTokens: readMaxTokens(body) ?? defaultMaxTokens,
    n: readN(body),
    logprobs,
    seed: optionalInteger(body, 'seed'),
  }
}

function isTokenList(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every((item) => Number.isInteger(item))
}

/** `prompt`: a string, a list of strings, a list of token ids, or a list of such lists. */
function readPrompts(prompt: unknown): Array<string | number[]> {
  if (typeof prompt === 'string') return [prompt]
  if (isTokenList(prompt)) return [prompt]
  if (Array.isArray(prompt) && prompt.length > 0) {
    return prompt.map((item) => {
      if (typeof item === 'string' || isTokenList(item)) return item
      throw new SimError(400, 'prompt: Input should be a string, a list of strings or a list of token ids', 'prompt')
    })
  }
  if (prompt === undefined || prompt === null) throw new SimError(400, 'prompt: Field required', 'prompt')
  throw new SimError(400, 'prompt: Input should be a string, a list of strings or a list of token ids', 'prompt')
}
