/**
 * The chat completion request, read from its JSON body into the few things the simulator acts
 * on. Validation follows vLLM's order of checks and wording where the gateway sees them.
 */
import { SimError } from './api-error.js'
import {
  checkLogprobsCount,
  isObject,
  optionalArray,
  optionalBoolean,
  optionalInteger,
  optionalObject,
  optionalString,
  readMaxTokens,
  readN,
  readStreamFlags,
  requiredString,
  type JsonObject,
} from './body-fields.js'

export interface ChatMessage {
  role: string
  /** All text of the message: string content, text parts, tool calls of an assistant turn. */
  text: string
  imageUrls: string[]
}

export interface ToolDefinition {
  name: string
  /** JSON Schema of the arguments; `{}` when the tool has none. */
  parameters: unknown
}

export type ToolChoice = { kind: 'none' } | { kind: 'auto' } | { kind: 'required' } | { kind: 'named'; name: string }

export type ResponseFormat =
  | { kind: 'text' }
  | { kind: 'json_object' }
  | { kind: 'json_schema'; schema: unknown }
  | { kind: 'choice'; choices: string[] }

export interface ThinkingControls {
  /** `chat_template_kwargs.enable_thinking` (or `thinking`), when the request set it. */
  enableThinking: boolean | undefined
  reasoningEffort: string | undefined
  thinkingTokenBudget: number | undefined
  /** vLLM's `include_reasoning` (default true): false drops reasoning from the reply. */
  includeReasoning: boolean
}

export interface ChatRequest {
  model: string
  messages: ChatMessage[]
  stream: boolean
  includeUsage: boolean
  continuousUsage: boolean
  maxTokens: number | undefined
  /** vLLM's `ignore_eos`: generate exactly max_tokens (benchmarks want fixed-length replies). */
  ignoreEos: boolean
  n: number
  logprobs: boolean
  topLogprobs: number
  tools: ToolDefinition[]
  /** The tools as the chat template would render them, for token counting. */
  toolsText: string
  toolChoice: ToolChoice
  responseFormat: ResponseFormat
  thinking: ThinkingControls
  /** Seeds the reply: the messages as sent, plus the request's `seed`. */
  promptKey: string
}

const reasoningEfforts = new Set(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'])

export function readChatRequest(body: JsonObject): ChatRequest {
  const flags = readStreamFlags(body)
  const logprobs = optionalBoolean(body, 'logprobs') ?? false
  const topLogprobs = optionalInteger(body, 'top_logprobs')
  if (topLogprobs !== undefined && !logprobs) {
    throw new SimError(400, 'when using `top_logprobs`, `logprobs` must be set to true.', 'top_logprobs')
  }
  if (topLogprobs !== undefined) checkLogprobsCount(topLogprobs, 'top_logprobs')
  const model = requiredString(body, 'model')
  const rawMessages = optionalArray(body, 'messages')
  if (!rawMessages) throw new SimError(400, 'messages: Field required', 'messages')
  if (rawMessages.length === 0) throw new SimError(400, 'messages: List should have at least 1 item', 'messages')
  const tools = readTools(body)
  const seed = optionalInteger(body, 'seed')
  return {
    model,
    messages: readMessages(rawMessages),
    ...flags,
    maxTokens: readMaxTokens(body),
    ignoreEos: optionalBoolean(body, 'ignore_eos') ?? false,
    n: readN(body),
    logprobs,
    topLogprobs: topLogprobs ?? 0,
    tools,
    toolsText: tools.length > 0 ? JSON.stringify(body.tools) : '',
    toolChoice: readToolChoice(body, tools),
    responseFormat: readResponseFormat(body),
    thinking: readThinkingControls(body),
    promptKey: JSON.stringify(rawMessages) + (seed === undefined ? '' : `#${seed}`),
  }
}

export function readMessages(raw: readonly unknown[]): ChatMessage[] {
  return raw.map(readMessage)
}

function readMessage(raw: unknown, index: number): ChatMessage {
  if (!isObject(raw)) throw new SimError(400, `messages.${index}: Input should be a valid dictionary`, 'messages')
  const role = optionalString(raw, 'role')
  if (!role) throw new SimError(400, `messages.${index}.role: Field required`, 'messages')
  const message: ChatMessage = { role, text: '', imageUrls: [] }
  const content = raw.content
  if (typeof content === 'string') message.text = content
  else if (Array.isArray(content)) content.forEach((part) => readContentPart(part, message))
  else if (content !== undefined && content !== null) {
    throw new SimError(400, `messages.${index}.content: Input should be a valid string or list`, 'messages')
  }
  // Earlier tool calls are part of the prompt: the chat template renders them as text.
  if (Array.isArray(raw.tool_calls) && raw.tool_calls.length > 0) message.text += JSON.stringify(raw.tool_calls)
  return message
}

function readContentPart(part: unknown, message: ChatMessage): void {
  if (!isObject(part)) return
  if (part.type === 'text' && typeof part.text === 'string') {
    message.text += part.text
    return
  }
  if (part.type === 'image_url') {
    const image = part.image_url
    const url =
      typeof image === 'string' ? image : isObject(image) && typeof image.url === 'string' ? image.url : undefined
    if (!url) throw new SimError(400, 'image_url: Field required', 'messages')
    message.imageUrls.push(url)
    return
  }
  // Audio, files and unknown parts: counted as their JSON text, which is roughly their weight.
  message.text += JSON.stringify(part)
}

function readTools(body: JsonObject): ToolDefinition[] {
  const raw = optionalArray(body, 'tools')
  if (!raw) return []
  return raw.map((tool, index) => {
    const fn = isObject(tool) ? tool.function : undefined
    if (!isObject(fn) || typeof fn.name !== 'string') {
      throw new SimError(400, `tools.${index}.function.name: Field required`, 'tools')
    }
    return { name: fn.name, parameters: fn.parameters ?? {} }
  })
}

function readToolChoice(body: JsonObject, tools: ToolDefinition[]): ToolChoice {
  const raw = body.tool_choice
  if (raw === undefined || raw === null) return tools.length > 0 ? { kind: 'auto' } : { kind: 'none' }
  if (raw === 'none' || raw === 'auto' || raw === 'required') {
    if (raw === 'required' && tools.length === 0) {
      throw new SimError(400, 'When using `tool_choice`, `tools` must be set.', 'tool_choice')
    }
    return { kind: raw }
  }
  if (isObject(raw) && isObject(raw.function) && typeof raw.function.name === 'string') {
    const name = raw.function.name
    if (!tools.some((tool) => tool.name === name)) {
      throw new SimError(400, `Tool '${name}' has not been passed in \`tools\`.`, 'tool_choice')
    }
    return { kind: 'named', name }
  }
  throw new SimError(400, 'tool_choice: Input should be "none", "auto", "required" or a named function', 'tool_choice')
}

function readResponseFormat(body: JsonObject): ResponseFormat {
  const structured = optionalObject(body, 'structured_outputs')
  if (structured) {
    if (structured.json !== undefined) {
      const schema = typeof structured.json === 'string' ? parseSchemaText(structured.json) : structured.json
      return { kind: 'json_schema', schema }
    }
    if (Array.isArray(structured.choice)) return { kind: 'choice', choices: structured.choice.map(String) }
  }
  const format = optionalObject(body, 'response_format')
  if (!format) return { kind: 'text' }
  switch (format.type) {
    case 'text':
      return { kind: 'text' }
    case 'json_object':
      return { kind: 'json_object' }
    case 'json_schema': {
      const spec = format.json_schema
      if (!isObject(spec)) {
        throw new SimError(
          400,
          "When response_format type is 'json_schema', the 'json_schema' field must be provided.",
          'response_format',
        )
      }
      return { kind: 'json_schema', schema: spec.schema ?? {} }
    }
    default:
      throw new SimError(
        400,
        "response_format.type: Input should be 'text', 'json_object' or 'json_schema'",
        'response_format',
      )
  }
}

function parseSchemaText(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new SimError(400, 'structured_outputs.json: not valid JSON', 'structured_outputs')
  }
}

function readThinkingControls(body: JsonObject): ThinkingControls {
  const kwargs = optionalObject(body, 'chat_template_kwargs')
  // Qwen3 uses enable_thinking; Granite and DeepSeek-V3.1 use thinking.
  const enableThinking = kwargs
    ? (optionalBoolean(kwargs, 'enable_thinking') ?? optionalBoolean(kwargs, 'thinking'))
    : undefined
  const reasoningEffort = optionalString(body, 'reasoning_effort')
  if (reasoningEffort !== undefined && !reasoningEfforts.has(reasoningEffort)) {
    throw new SimError(
      400,
      "reasoning_effort: Input should be 'none', 'minimal', 'low', 'medium', 'high', 'xhigh' or 'max'",
      'reasoning_effort',
    )
  }
  const thinkingTokenBudget = optionalInteger(body, 'thinking_token_budget')
  if (thinkingTokenBudget !== undefined && thinkingTokenBudget < 0) {
    throw new SimError(400, 'thinking_token_budget must be a non-negative integer.', 'thinking_token_budget')
  }
  return {
    enableThinking,
    reasoningEffort,
    thinkingTokenBudget,
    includeReasoning: optionalBoolean(body, 'include_reasoning') ?? true,
  }
}
