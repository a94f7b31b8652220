/**
 * The Anthropic Messages API as far as the gateway speaks it: the request's content blocks,
 * the `message` object, and the streamed events. Types only; shapes follow Anthropic's API
 * reference (and the official SDK's declarations) field for field.
 */

export interface TextBlockParam {
  type: 'text'
  text: string
}

export type ImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string }

export interface ImageBlockParam {
  type: 'image'
  source: ImageSource
}

export interface ToolUseBlockParam {
  type: 'tool_use'
  id: string
  name: string
  input: unknown
}

export interface ToolResultBlockParam {
  type: 'tool_result'
  tool_use_id: string
  content?: string | (TextBlockParam | ImageBlockParam)[]
  is_error?: boolean
}

/** Thinking sent back in an assistant turn: accepted and not forwarded (see docs/decisions.md). */
export interface ThinkingBlockParam {
  type: 'thinking' | 'redacted_thinking'
}

export type ContentBlockParam =
  | TextBlockParam
  | ImageBlockParam
  | ToolUseBlockParam
  | ToolResultBlockParam
  | ThinkingBlockParam

export interface MessageParam {
  role: 'user' | 'assistant' | 'system'
  content: string | ContentBlockParam[]
}

export interface ToolParam {
  name: string
  /** Absent or `custom` for a client tool; Anthropic's server tools (web_search_…) have their own. */
  type?: string
  description?: string
  input_schema?: Record<string, unknown>
}

export type ToolChoiceParam =
  | { type: 'auto' | 'any' | 'none'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }

export type ThinkingParam = { type: 'enabled'; budget_tokens: number } | { type: 'disabled' } | { type: 'adaptive' }

export type Effort = 'low' | 'medium' | 'high' | 'xhigh' | 'max'

export interface MessagesRequest {
  model?: string
  messages: MessageParam[]
  system?: string | TextBlockParam[]
  max_tokens?: number
  stop_sequences?: string[]
  stream?: boolean
  temperature?: number
  top_p?: number
  top_k?: number
  tools?: ToolParam[]
  tool_choice?: ToolChoiceParam
  thinking?: ThinkingParam
  output_config?: { effort?: Effort | null; format?: { type: 'json_schema'; schema: Record<string, unknown> } | null }
  metadata?: Record<string, unknown>
}

// --- the reply ---------------------------------------------------------------------------

export interface TextBlock {
  type: 'text'
  text: string
}

export interface ThinkingBlock {
  type: 'thinking'
  thinking: string
  signature: string
}

export interface ToolUseBlock {
  type: 'tool_use'
  id: string
  name: string
  input: unknown
}

export type ContentBlock = TextBlock | ThinkingBlock | ToolUseBlock

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal'

export interface MessageUsage {
  /** Input tokens not read from the cache (Anthropic counts cached ones apart). */
  input_tokens: number
  output_tokens: number
  cache_creation_input_tokens: number
  cache_read_input_tokens: number
}

export interface Message {
  id: string
  type: 'message'
  role: 'assistant'
  model: string
  content: ContentBlock[]
  stop_reason: StopReason | null
  stop_sequence: string | null
  usage: MessageUsage
}

// --- the stream --------------------------------------------------------------------------

export type BlockDelta =
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'signature_delta'; signature: string }
  | { type: 'input_json_delta'; partial_json: string }

export type MessageStreamEvent =
  | { type: 'message_start'; message: Message }
  | { type: 'content_block_start'; index: number; content_block: ContentBlock }
  | { type: 'content_block_delta'; index: number; delta: BlockDelta }
  | { type: 'content_block_stop'; index: number }
  | {
      type: 'message_delta'
      delta: { stop_reason: StopReason | null; stop_sequence: string | null }
      usage: MessageUsage
    }
  | { type: 'message_stop' }
