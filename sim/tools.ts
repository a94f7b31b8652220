/**
 * Tool calling, as a server with an auto tool-call parser behaves: a call when the request
 * leaves no choice (`required`, a named function) and, under `auto`, when the last user message
 * asks for one (names a tool, or says "tool"). A tool result as the last message is answered
 * with text, so a round trip ends. Arguments always satisfy the tool's parameter schema.
 *
 * Two tool names are understood, as a gateway's add-ons name them: `web_search` is called when
 * the user asks to search or look something up, `generate_image` when the user asks to draw or
 * paint; their `query` / `prompt` argument is then the user's own words (when the schema lets
 * it be any string), so the search or the image depends on the prompt.
 */
import type { ChatRequest, ToolDefinition } from './chat-request.js'
import { isObject } from './body-fields.js'
import { jsonFromSchema, type GeneratedJson } from './json-from-schema.js'
import type { SeededRandom } from './seeded-random.js'

export interface PlannedToolCall {
  id: string
  name: string
  /** The arguments as the JSON string OpenAI sends. */
  arguments: string
  /**
   * vLLM: a named tool choice finishes with `stop`, auto and required with `tool_calls`; arguments
   * cut short by the output limit with `length`.
   */
  finishReason: 'tool_calls' | 'stop' | 'length'
}

const mentionsTools = /\btools?\b/i

/** The requests that call a gateway add-on's tool by name: what the user asks for, and the argument that carries it. */
const intents: readonly { tool: string; asks: RegExp; argument: string }[] = [
  { tool: 'web_search', asks: /\b(search|look(ing)? up)\b/i, argument: 'query' },
  { tool: 'generate_image', asks: /\b(draw|paint|sketch)\b/i, argument: 'prompt' },
]

function intended(tools: readonly ToolDefinition[], text: string): ToolDefinition | undefined {
  for (const intent of intents) {
    const tool = tools.find((t) => t.name === intent.tool)
    if (tool && intent.asks.test(text)) return tool
  }
  return undefined
}

export function chooseTool(
  request: ChatRequest,
): { tool: ToolDefinition; finishReason: 'tool_calls' | 'stop' } | undefined {
  const choice = request.toolChoice
  if (choice.kind === 'none' || request.tools.length === 0) return undefined
  if (choice.kind === 'named') {
    const tool = request.tools.find((t) => t.name === choice.name)
    return tool ? { tool, finishReason: 'stop' } : undefined
  }
  const lastUser = lastUserText(request)
  const mentioned = request.tools.find((tool) => lastUser.toLowerCase().includes(tool.name.toLowerCase()))
  if (choice.kind === 'required') return { tool: mentioned ?? firstTool(request.tools), finishReason: 'tool_calls' }
  if (mentioned) return { tool: mentioned, finishReason: 'tool_calls' }
  const intent = intended(request.tools, lastUser)
  if (intent) return { tool: intent, finishReason: 'tool_calls' }
  if (mentionsTools.test(lastUser)) return { tool: firstTool(request.tools), finishReason: 'tool_calls' }
  return undefined
}

/** The text of the last message when the user sent it (a tool result last asks for no call). */
export function lastUserText(request: ChatRequest): string {
  const last = request.messages[request.messages.length - 1]
  return last?.role === 'user' ? last.text : ''
}

function firstTool(tools: readonly ToolDefinition[]): ToolDefinition {
  const tool = tools[0]
  if (!tool) throw new Error('no tools to choose from')
  return tool
}

/** A call whose arguments take at most `maxChars` characters (what the output limit leaves). */
export function planToolCall(
  tool: ToolDefinition,
  finishReason: 'tool_calls' | 'stop',
  random: SeededRandom,
  maxChars: number,
  userText = '',
): PlannedToolCall {
  const id = `call_${random.hex(24)}`
  const args = intentArguments(tool, userText, maxChars) ?? toolArguments(tool.parameters, random, maxChars)
  return { id, name: tool.name, arguments: args.text, finishReason: args.complete ? finishReason : 'length' }
}

/**
 * An add-on tool's arguments carry the user's words: `{"query": "<the request>"}`, when the
 * schema's property is a plain string (no enum, pattern or length bound the words might break)
 * and no other property is required.
 */
function intentArguments(tool: ToolDefinition, userText: string, maxChars: number): GeneratedJson | undefined {
  const intent = intents.find((i) => i.tool === tool.name)
  const params = tool.parameters
  if (!intent || userText.trim() === '' || !isObject(params) || !isObject(params.properties)) return undefined
  const prop = params.properties[intent.argument]
  if (!isObject(prop) || prop.type !== 'string' || Object.keys(prop).some((k) => !['type', 'description'].includes(k)))
    return undefined
  const required = Array.isArray(params.required) ? params.required : []
  if (required.some((r) => r !== intent.argument)) return undefined
  const text = JSON.stringify({ [intent.argument]: Array.from(userText.trim()).slice(0, 200).join('') })
  return text.length <= maxChars ? { text, complete: true } : undefined
}

/** Arguments are always an object, even for a tool declared without parameters. */
function toolArguments(parameters: unknown, random: SeededRandom, maxChars: number): GeneratedJson {
  const schema = isObject(parameters) && parameters.type === undefined ? { type: 'object', ...parameters } : parameters
  const json = jsonFromSchema(schema, random, maxChars)
  return json.text.startsWith('{') ? json : { text: '{}', complete: true }
}

/** The text of a tool result the answer quotes, so a client sees its round trip came back. */
export function toolResultQuote(request: ChatRequest): string | undefined {
  const last = request.messages[request.messages.length - 1]
  if (last?.role !== 'tool') return undefined
  return Array.from(last.text).slice(0, 40).join('')
}
