/**
 * A Messages request as a chat-completions body, so that the chat machinery (model, reasoning,
 * boons, budget, fair queue, records, backend) serves it unchanged. A block the gateway cannot
 * carry is refused with 400 and its path (`messages.1.content.0`), as Anthropic's API names
 * fields, rather than dropped: a client must not believe a document was read when it was not.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import { readImageUrl } from '../openai/image-url.js'
import type { ContentBlockParam, MessageParam, MessagesRequest, TextBlockParam, ToolParam } from './messages.js'
import type { ChatContentPart, ChatMessage, ChatRequestBody, ChatToolCall } from './openai-chat.js'

/** Image types the Messages API accepts in a base64 source. */
const MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp']

const invalid = (message: string) => new GatewayError(400, message, { code: 'invalid_request' })

/**
 * The reasoning level (`reasoning_effort`) a request asks for, or undefined for the model's
 * default. `thinking` decides when given: disabled → none; enabled by its budget (≤ 2048 low,
 * ≤ 8192 medium, above high). Otherwise (absent or adaptive) `output_config.effort`, whose
 * words the reasoning step reads as levels or their synonyms (xhigh, max → high).
 */
export function reasoningLevel(request: Pick<MessagesRequest, 'thinking' | 'output_config'>): string | undefined {
  const thinking = request.thinking
  if (thinking?.type === 'disabled') return 'none'
  if (thinking?.type === 'enabled')
    return thinking.budget_tokens <= 2048 ? 'low' : thinking.budget_tokens <= 8192 ? 'medium' : 'high'
  return request.output_config?.effort ?? undefined
}

/**
 * `create`: the whole request. `count`: what a prompt's token count depends on (model,
 * system, messages, tools), for /messages/count_tokens.
 */
export function messagesToChat(request: MessagesRequest, mode: 'create' | 'count' = 'create'): ChatRequestBody {
  const messages: ChatMessage[] = []
  const system = systemText(request.system, 'system')
  if (system !== undefined) messages.push({ role: 'system', content: system })
  request.messages.forEach((message, i) => messages.push(...chatMessages(message, `messages.${i}`)))
  const body: ChatRequestBody = { messages }
  if (request.model !== undefined) body.model = request.model
  if (request.tools !== undefined) body.tools = request.tools.map(chatTool)
  if (mode === 'count') return body

  const maxTokens = request.max_tokens!
  if (request.thinking?.type === 'enabled' && request.thinking.budget_tokens >= maxTokens)
    throw invalid('`max_tokens` must be greater than `thinking.budget_tokens`')
  body.max_tokens = maxTokens
  if (request.stop_sequences !== undefined && request.stop_sequences.length > 0) body.stop = request.stop_sequences
  if (request.temperature !== undefined) body.temperature = request.temperature
  if (request.top_p !== undefined) body.top_p = request.top_p
  if (request.top_k !== undefined) body.top_k = request.top_k
  const choice = request.tool_choice
  if (choice) {
    // `auto` is what a chat server does with tools anyway: leaving it out keeps models
    // without supports_tool_choice usable by clients that always send it.
    if (choice.type === 'any') body.tool_choice = 'required'
    else if (choice.type === 'none') body.tool_choice = 'none'
    else if (choice.type === 'tool') {
      if (typeof choice.name !== 'string') throw invalid('tool_choice.name: Field required')
      body.tool_choice = { type: 'function', function: { name: choice.name } }
    }
    if (choice.disable_parallel_tool_use === true) body.parallel_tool_calls = false
  }
  const level = reasoningLevel(request)
  if (level !== undefined) body.reasoning_effort = level
  const format = request.output_config?.format
  if (format)
    body.response_format = { type: 'json_schema', json_schema: { name: 'output', schema: format.schema, strict: true } }
  if (request.stream === true) {
    body.stream = true
    // Usage on every chunk: the first one then carries the prompt's token count, which
    // message_start reports (servers without continuous usage ignore the flag).
    body.stream_options = { include_usage: true, continuous_usage_stats: true }
  }
  return body
}

function systemText(system: string | TextBlockParam[] | undefined, path: string): string | undefined {
  if (system === undefined) return undefined
  if (typeof system === 'string') return system
  return system
    .map((block, j) => {
      if (block.type !== 'text') throw invalid(`${path}.${j}.type: only text blocks are accepted here`)
      return block.text
    })
    .join('\n')
}

function chatTool(tool: ToolParam, i: number): NonNullable<ChatRequestBody['tools']>[number] {
  if (tool.type !== undefined && tool.type !== 'custom')
    throw invalid(
      `tools.${i}.type: ${tool.type} is a server tool of Anthropic's; this gateway runs client tools only (name, description, input_schema)`,
    )
  if (tool.input_schema === undefined) throw invalid(`tools.${i}.input_schema: Field required`)
  const fn: { name: string; description?: string; parameters: Record<string, unknown> } = {
    name: tool.name,
    parameters: tool.input_schema,
  }
  if (tool.description !== undefined) fn.description = tool.description
  return { type: 'function', function: fn }
}

function chatMessages(message: MessageParam, path: string): ChatMessage[] {
  const { role, content } = message
  if (role === 'system')
    return [{ role: 'system', content: systemText(content as string | TextBlockParam[], `${path}.content`)! }]
  if (typeof content === 'string') return [role === 'user' ? { role: 'user', content } : { role: 'assistant', content }]
  return role === 'user' ? userMessages(content, path) : [assistantMessage(content, path)]
}

/** Tool results become tool messages, first (they answer the turn before); the rest one user message. */
function userMessages(blocks: ContentBlockParam[], path: string): ChatMessage[] {
  const tools: ChatMessage[] = []
  const parts: ChatContentPart[] = []
  blocks.forEach((block, j) => {
    const at = `${path}.content.${j}`
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: textOf(block, at) })
        break
      case 'image':
        parts.push(imagePart(block.source, at))
        break
      case 'tool_result': {
        if (typeof block.tool_use_id !== 'string') throw invalid(`${at}.tool_use_id: Field required`)
        const result = block.content
        let text = ''
        if (typeof result === 'string') text = result
        else if (Array.isArray(result)) {
          const texts: string[] = []
          result.forEach((inner, k) => {
            // An image in a result goes to the user turn that follows: tool messages hold text only.
            if (inner.type === 'image') parts.push(imagePart(inner.source, `${at}.content.${k}`))
            else if (inner.type === 'text') texts.push(textOf(inner, `${at}.content.${k}`))
            else throw unsupported((inner as { type: string }).type, `${at}.content.${k}`)
          })
          text = texts.join('\n')
        }
        tools.push({ role: 'tool', tool_call_id: block.tool_use_id, content: text })
        break
      }
      case 'thinking':
      case 'redacted_thinking':
        break
      default:
        throw unsupported(block.type, at)
    }
  })
  return parts.length > 0 ? [...tools, { role: 'user', content: parts }] : tools
}

function assistantMessage(blocks: ContentBlockParam[], path: string): ChatMessage {
  let text = ''
  const calls: ChatToolCall[] = []
  blocks.forEach((block, j) => {
    const at = `${path}.content.${j}`
    switch (block.type) {
      case 'text':
        text += textOf(block, at)
        break
      case 'tool_use':
        if (typeof block.id !== 'string' || typeof block.name !== 'string')
          throw invalid(`${at}: a tool_use block needs id and name`)
        calls.push({
          id: block.id,
          type: 'function',
          function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
        })
        break
      // Earlier thinking is not sent back to the model server: chat templates drop it too.
      case 'thinking':
      case 'redacted_thinking':
        break
      default:
        throw unsupported(block.type, at)
    }
  })
  if (calls.length === 0) return { role: 'assistant', content: text }
  return { role: 'assistant', content: text === '' ? null : text, tool_calls: calls }
}

function textOf(block: { text?: unknown }, at: string): string {
  if (typeof block.text !== 'string') throw invalid(`${at}.text: Field required`)
  return block.text
}

function imagePart(source: unknown, at: string): ChatContentPart {
  const s = (source ?? {}) as { type?: unknown; media_type?: unknown; data?: unknown; url?: unknown }
  if (s.type === 'base64') {
    if (typeof s.media_type !== 'string' || !MEDIA_TYPES.includes(s.media_type))
      throw invalid(`${at}.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`)
    if (typeof s.data !== 'string' || s.data === '') throw invalid(`${at}.source.data: Field required`)
    return { type: 'image_url', image_url: { url: `data:${s.media_type};base64,${s.data}` } }
  }
  if (s.type === 'url') {
    // The model server fetches it: the same rule as chat's image_url (no private networks).
    if (typeof s.url !== 'string' || readImageUrl(s.url)?.kind !== 'https')
      throw invalid(`${at}.source.url must be a public https:// URL`)
    return { type: 'image_url', image_url: { url: s.url } }
  }
  throw invalid(`${at}.source.type: Input should be 'base64' or 'url'`)
}

function unsupported(type: string, at: string): GatewayError {
  return invalid(
    `${at}.type: ${type} blocks are not supported by this gateway (text, image, tool_use, tool_result and thinking are)`,
  )
}
