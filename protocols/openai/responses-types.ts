/**
 * The OpenAI Responses API on the wire, as far as the gateway speaks it: the request, its
 * input items, the Response object and its output items. Shapes follow the `openai` SDK v6
 * (resources/responses/responses.d.ts); fields the gateway neither reads nor writes are left out.
 */

export type Json = Record<string, unknown>

export interface InputTextPart {
  type: 'input_text'
  text: string
}
export interface InputImagePart {
  type: 'input_image'
  image_url?: string | null
  file_id?: string | null
  detail?: string
}
/** Earlier assistant turns sent back as input carry their output parts. */
export interface OutputTextPart {
  type: 'output_text'
  text: string
  annotations?: unknown[]
  logprobs?: unknown[]
}
export type ContentPart = InputTextPart | InputImagePart | OutputTextPart | { type: string; [field: string]: unknown }

export interface MessageItem {
  type?: 'message'
  id?: string
  role: 'user' | 'assistant' | 'system' | 'developer'
  content: string | ContentPart[]
  status?: string
}

export interface FunctionCallItem {
  type: 'function_call'
  id?: string
  call_id: string
  name: string
  arguments: string
  status?: 'in_progress' | 'completed' | 'incomplete'
}

export interface FunctionCallOutputItem {
  type: 'function_call_output'
  id?: string
  call_id: string
  output: string | ContentPart[]
  status?: string
}

export interface ReasoningItem {
  type: 'reasoning'
  id: string
  summary: { type: 'summary_text'; text: string }[]
  /** Present when the request's `include` asks for `reasoning.encrypted_content`. */
  encrypted_content?: string | null
  status?: 'in_progress' | 'completed' | 'incomplete'
}

export interface ItemReference {
  type: 'item_reference'
  id: string
}

export type InputItem = MessageItem | FunctionCallItem | FunctionCallOutputItem | ReasoningItem | ItemReference

export interface FunctionTool {
  type: 'function'
  name: string
  description?: string | null
  parameters?: Json | null
  strict?: boolean | null
}

export type TextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Json; strict?: boolean | null; description?: string }

export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; name: string } | Json

/** The request body of `POST /v1/responses` (after the route's schema check). */
export interface ResponsesRequest {
  model?: string
  input?: string | InputItem[]
  instructions?: string | null
  tools?: FunctionTool[]
  tool_choice?: ToolChoice
  text?: { format?: TextFormat; verbosity?: string | null } | null
  reasoning?: { effort?: string | null; summary?: string | null } | null
  max_output_tokens?: number | null
  temperature?: number | null
  top_p?: number | null
  parallel_tool_calls?: boolean | null
  metadata?: Record<string, string> | null
  user?: string
  store?: boolean | null
  previous_response_id?: string | null
  stream?: boolean | null
  /** Extra output to include; the gateway acts on `reasoning.encrypted_content` alone. */
  include?: string[] | null
  [field: string]: unknown
}

export interface OutputMessage {
  type: 'message'
  id: string
  role: 'assistant'
  status: 'in_progress' | 'completed' | 'incomplete'
  content: OutputTextPart[]
}

export interface OutputFunctionCall extends FunctionCallItem {
  id: string
  status: 'in_progress' | 'completed' | 'incomplete'
}

export type OutputItem = ReasoningItem | OutputMessage | OutputFunctionCall

export interface ResponseUsage {
  input_tokens: number
  input_tokens_details: { cached_tokens: number }
  output_tokens: number
  output_tokens_details: { reasoning_tokens: number }
  total_tokens: number
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed'

/** The Response object (`object: 'response'`). `output_text` is the SDKs' own convenience, not sent. */
export interface ResponseObject {
  id: string
  object: 'response'
  created_at: number
  status: ResponseStatus
  background: false
  error: { code: string; message: string } | null
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null
  instructions: string | null
  max_output_tokens: number | null
  model: string
  output: OutputItem[]
  parallel_tool_calls: boolean
  previous_response_id: string | null
  reasoning: { effort: string | null; summary: string | null }
  store: boolean
  temperature: number | null
  text: { format: TextFormat }
  tool_choice: ToolChoice
  tools: FunctionTool[]
  top_p: number | null
  truncation: 'disabled'
  usage: ResponseUsage | null
  user?: string
  metadata: Record<string, string>
  completed_at?: number | null
}
