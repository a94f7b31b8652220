/**
 * Tool calling, as a server with an auto tool-call parser behaves: a call when the request
 * leaves no choice (`required`, a named function) and, under `auto`, when the last user message
 * asks for one (names a tool, or says "tool"). A tool result as the last message is answered
 * with text, so a round trip ends. Arguments always satisfy the tool's parameter schema.
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

export function chooseTool(request: ChatRequest): { tool: ToolDefinition; finishReason: 'tool_calls' | 'stop' } | undefined {
  const choice = request.toolChoice
  if (choice.kind === 'none' || request.tools.length === 0) return undefined
  if (choice.kind === 'named') {
    const tool = request.tools.find((t) => t.name === choice.name)
    return tool ? { tool, finishReason: 'stop' } : undefined
  }
  const last = request.messages[request.messages.length - 1]
  const lastUserText = last?.role === 'user' ? last.text : ''
  const mentioned = request.tools.find((tool) => lastUserText.toLowerCase().includes(tool.name.toLowerCase()))
  if (choice.kind === 'required') return { tool: mentioned ?? firstTool(request.tools), finishReason: 'tool_calls' }
  if (mentioned) return { tool: mentioned, finishReason: 'tool_calls' }
  if (mentionsTools.test(lastUserText)) return { tool: firstTool(request.tools), finishReason: 'tool_calls' }
  return undefined
}

function firstTool(tools: readonly ToolDefinition[]): ToolDefinition {
  const tool = tools[0]
  if (!tool) throw new Error('no tools to choose from')
  return tool
}

/** A call whose arguments take at most `maxChars` characters (what the output limit leaves). */
export function planToolCall(tool: ToolDefinition, finishReason: 'tool_calls' | 'stop', random: SeededRandom, maxChars: number): PlannedToolCall {
  const id = `call_${random.hex(24)}`
  const args = toolArguments(tool.parameters, random, maxChars)
  return { id, name: tool.name, arguments: args.text, finishReason: args.complete ? finishReason : 'length' }
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
