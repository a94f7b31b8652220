/**
 * The slice of the OpenAI chat-completions wire that the Messages translation writes (the
 * request) and reads (the completion and its chunks), as the model servers send it (vLLM's
 * shapes: `reasoning`, `stop_reason`, `prompt_tokens_details`).
 */

export type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }

export interface ChatToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatContentPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string }

export interface ChatRequestBody {
  model?: string
  messages: ChatMessage[]
  max_tokens?: number
  stop?: string[]
  stream?: boolean
  stream_options?: { include_usage: boolean; continuous_usage_stats?: boolean }
  temperature?: number
  top_p?: number
  top_k?: number
  tools?: { type: 'function'; function: { name: string; description?: string; parameters: Record<string, unknown> } }[]
  tool_choice?: 'none' | 'required' | { type: 'function'; function: { name: string } }
  parallel_tool_calls?: boolean
  reasoning_effort?: string
  response_format?: {
    type: 'json_schema'
    json_schema: { name: string; schema: Record<string, unknown>; strict: boolean }
  }
}

export interface ChatUsage {
  prompt_tokens?: number
  completion_tokens?: number
  prompt_tokens_details?: { cached_tokens?: number } | null
}

export interface ChatCompletion {
  choices?: {
    message?: { content?: string | null; reasoning?: string | null; tool_calls?: ChatToolCall[] | null }
    finish_reason?: string | null
    /** vLLM: the stop string (or token id) that ended the reply. */
    stop_reason?: string | number | null
  }[]
  usage?: ChatUsage | null
}

export interface ChatToolCallDelta {
  index?: number
  id?: string
  function?: { name?: string; arguments?: string }
}

export interface ChatChunk {
  choices?: {
    index?: number
    delta?: { content?: string | null; reasoning?: string | null; tool_calls?: ChatToolCallDelta[] | null }
    finish_reason?: string | null
    stop_reason?: string | number | null
  }[]
  usage?: ChatUsage | null
}
