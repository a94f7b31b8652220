/**
 * A Responses request as a chat completion request: the input items (after the history of a
 * `previous_response_id`) become chat messages, function tools chat tools, `text.format` a
 * `response_format`, `reasoning.effort` the `reasoning_effort` the reasoning step maps, and
 * `max_output_tokens` the `max_tokens` budgets may lower. Whatever a chat model server cannot
 * do (hosted tools, file ids, background runs) is refused with a 400 that names it.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import type {
  ContentPart,
  FunctionTool,
  InputItem,
  Json,
  MessageItem,
  ResponsesRequest,
  TextFormat,
  ToolChoice,
} from './responses-types.js'

export interface ChatToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}
export type ChatPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: string } }
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string | ChatPart[] | null
  tool_calls?: ChatToolCall[]
  tool_call_id?: string
}

/** The chat completion body the rest of the chat route (model, reasoning, budget, backend) reads. */
export interface ChatBody {
  model?: string
  messages: ChatMessage[]
  stream?: boolean
  stream_options?: { include_usage: boolean }
  tools?: { type: 'function'; function: { name: string; description?: string; parameters?: Json; strict?: boolean } }[]
  tool_choice?: string | Json
  response_format?: Json
  reasoning_effort?: string
  max_tokens?: number
  temperature?: number
  top_p?: number
  parallel_tool_calls?: boolean
  user?: string
}

const invalid = (message: string) => new GatewayError(400, message, { code: 'invalid_request' })

/** Fields of the Responses API whose effect the gateway cannot give: refused rather than ignored. */
const REFUSED: Record<string, (value: unknown) => boolean> = {
  background: (v) => v === true,
  conversation: (v) => v !== undefined && v !== null,
  prompt: (v) => v !== undefined && v !== null,
}

/** The request's own input as items (a string is one user message). */
export function ownInput(req: ResponsesRequest): InputItem[] {
  if (req.input === undefined) throw invalid("Missing required parameter: 'input'.")
  if (typeof req.input === 'string') return [{ type: 'message', role: 'user', content: req.input }]
  return req.input
}

/**
 * The chat body of a Responses request. `history` is the input and output of the previous
 * response (empty without `previous_response_id`); `input` is the request's own input, with
 * item references already resolved.
 */
export function toChatBody(
  req: ResponsesRequest,
  history: readonly InputItem[],
  input: readonly InputItem[],
): ChatBody {
  for (const [field, refused] of Object.entries(REFUSED)) {
    if (refused(req[field])) throw invalid(`'${field}' is not supported by this gateway`)
  }
  const messages: ChatMessage[] = []
  // Instructions are the system turn of this request only: a previous response's are not carried over.
  if (typeof req.instructions === 'string' && req.instructions !== '')
    messages.push({ role: 'system', content: req.instructions })
  ;[...history, ...input].forEach((item, i) => addItem(messages, item, i))
  const body: ChatBody = { model: req.model, messages }
  if (req.tools !== undefined && req.tools.length > 0) body.tools = req.tools.map(chatTool)
  if (req.tool_choice !== undefined && req.tool_choice !== null) body.tool_choice = chatToolChoice(req.tool_choice)
  const format = req.text?.format
  if (format) {
    const responseFormat = chatResponseFormat(format)
    if (responseFormat) body.response_format = responseFormat
  }
  if (req.reasoning?.effort !== undefined && req.reasoning.effort !== null) body.reasoning_effort = req.reasoning.effort
  if (typeof req.max_output_tokens === 'number') body.max_tokens = req.max_output_tokens
  if (typeof req.temperature === 'number') body.temperature = req.temperature
  if (typeof req.top_p === 'number') body.top_p = req.top_p
  if (typeof req.parallel_tool_calls === 'boolean' && body.tools) body.parallel_tool_calls = req.parallel_tool_calls
  if (typeof req.user === 'string') body.user = req.user
  if (req.stream === true) {
    body.stream = true
    // The Responses stream ends with its usage, whatever the client asked.
    body.stream_options = { include_usage: true }
  }
  return body
}

function addItem(messages: ChatMessage[], item: InputItem, index: number): void {
  const type = item.type ?? ('role' in item ? 'message' : undefined)
  switch (type) {
    case 'message':
      messages.push(chatMessage(item as MessageItem, index))
      return
    case 'function_call': {
      const call = item as Extract<InputItem, { type: 'function_call' }>
      if (typeof call.call_id !== 'string' || typeof call.name !== 'string')
        throw invalid(`input[${index}]: a function_call needs call_id and name`)
      const toolCall: ChatToolCall = {
        id: call.call_id,
        type: 'function',
        function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : '{}' },
      }
      // Calls made in one turn are one assistant message with several tool calls.
      const last = messages[messages.length - 1]
      if (last?.role === 'assistant' && last.tool_calls) last.tool_calls.push(toolCall)
      else if (last?.role === 'assistant' && typeof last.content === 'string') last.tool_calls = [toolCall]
      else messages.push({ role: 'assistant', content: null, tool_calls: [toolCall] })
      return
    }
    case 'function_call_output': {
      const out = item as Extract<InputItem, { type: 'function_call_output' }>
      if (typeof out.call_id !== 'string') throw invalid(`input[${index}]: a function_call_output needs call_id`)
      messages.push({
        role: 'tool',
        tool_call_id: out.call_id,
        content: typeof out.output === 'string' ? out.output : textOf(out.output, index, 'function_call_output'),
      })
      return
    }
    case 'reasoning':
      // A model's own thinking is not sent back to it (chat templates drop it too).
      return
    case 'item_reference':
      throw invalid(`input[${index}]: item_reference ${(item as { id?: string }).id ?? ''} was not resolved`)
    default:
      throw invalid(
        `input[${index}]: input item type '${String(type)}' is not supported; use message, function_call, function_call_output or reasoning items`,
      )
  }
}

function chatMessage(item: MessageItem, index: number): ChatMessage {
  const role = item.role === 'developer' ? 'system' : item.role
  if (role !== 'user' && role !== 'assistant' && role !== 'system')
    throw invalid(`input[${index}]: role '${String(item.role)}' is not one of user, assistant, system or developer`)
  if (typeof item.content === 'string') return { role, content: item.content }
  if (!Array.isArray(item.content)) throw invalid(`input[${index}].content must be a string or a list of parts`)
  // Only user turns may hold images; every other role's parts are joined as text.
  if (role !== 'user') return { role, content: textOf(item.content, index, role) }
  return { role, content: item.content.map((part, j) => chatPart(part, `input[${index}].content[${j}]`)) }
}

function chatPart(part: ContentPart, where: string): ChatPart {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      if (typeof part.text !== 'string') throw invalid(`${where}.text must be a string`)
      return { type: 'text', text: part.text }
    case 'input_image': {
      const image = part as Extract<ContentPart, { type: 'input_image' }>
      if (typeof image.file_id === 'string' && image.file_id !== '')
        throw invalid(
          `${where}: input_image.file_id is not supported; send image_url (a base64 data URL or a public https:// URL)`,
        )
      if (typeof image.image_url !== 'string' || image.image_url === '')
        throw invalid(`${where}: input_image needs image_url`)
      return {
        type: 'image_url',
        image_url:
          image.detail && image.detail !== 'auto'
            ? { url: image.image_url, detail: image.detail }
            : { url: image.image_url },
      }
    }
    default:
      throw invalid(
        `${where}: content part type '${String(part.type)}' is not supported; use input_text or input_image`,
      )
  }
}

function textOf(parts: ContentPart[], index: number, what: string): string {
  if (!Array.isArray(parts)) throw invalid(`input[${index}]: ${what} content must be a string or a list of text parts`)
  return parts
    .map((part, j) => {
      if (
        (part.type === 'input_text' ||
          part.type === 'output_text' ||
          part.type === 'refusal' ||
          part.type === 'summary_text') &&
        typeof part.text === 'string'
      )
        return part.text
      if (part.type === 'refusal' && typeof part.refusal === 'string') return part.refusal
      throw invalid(`input[${index}].content[${j}]: a ${what} turn takes text parts only, not '${String(part.type)}'`)
    })
    .join('')
}

function chatTool(tool: FunctionTool, index: number): NonNullable<ChatBody['tools']>[number] {
  if (tool.type !== 'function')
    throw invalid(`tools[${index}]: tool type '${String(tool.type)}' is not supported; only function tools are`)
  if (typeof tool.name !== 'string' || tool.name === '') throw invalid(`tools[${index}]: a function tool needs a name`)
  const fn: NonNullable<ChatBody['tools']>[number]['function'] = { name: tool.name }
  if (typeof tool.description === 'string') fn.description = tool.description
  if (tool.parameters && typeof tool.parameters === 'object') fn.parameters = tool.parameters
  if (typeof tool.strict === 'boolean') fn.strict = tool.strict
  return { type: 'function', function: fn }
}

function chatToolChoice(choice: ToolChoice): string | Json {
  if (choice === 'none' || choice === 'auto' || choice === 'required') return choice
  if (typeof choice === 'object' && choice.type === 'function' && typeof choice.name === 'string')
    return { type: 'function', function: { name: choice.name } }
  const type = typeof choice === 'object' ? String(choice.type) : String(choice)
  throw invalid(`tool_choice '${type}' is not supported; use none, auto, required or {type: 'function', name}`)
}

function chatResponseFormat(format: TextFormat): Json | undefined {
  switch (format.type) {
    case 'text':
      return undefined
    case 'json_object':
      return { type: 'json_object' }
    case 'json_schema': {
      if (typeof format.name !== 'string' || !format.schema || typeof format.schema !== 'object')
        throw invalid("text.format of type 'json_schema' needs name and schema")
      const jsonSchema: Json = { name: format.name, schema: format.schema }
      if (typeof format.strict === 'boolean') jsonSchema.strict = format.strict
      if (typeof format.description === 'string') jsonSchema.description = format.description
      return { type: 'json_schema', json_schema: jsonSchema }
    }
    default:
      throw invalid(
        `text.format type '${String((format as { type?: unknown }).type)}' is not supported; use text, json_object or json_schema`,
      )
  }
}
