/** Shared by the simulator suites: a zero-latency config, typed reply shapes, JSON posts and an SSE reader. */
import { startSimulator, type RunningSimulator, type SimConfigInput } from '../../sim/index.js'

export const testModels: SimConfigInput['models'] = [
  { name: 'sim-instruct-8b', kind: 'chat', reasoning: 'none', completions: true, max_model_len: 32768 },
  {
    name: 'sim-thinker-8b',
    kind: 'chat',
    reasoning: 'thinking',
    reasoning_field: 'reasoning',
    thinking_default: true,
    max_model_len: 32768,
  },
  {
    name: 'sim-vision-7b',
    kind: 'chat',
    reasoning: 'thinking',
    reasoning_field: 'reasoning_content',
    thinking_default: false,
    max_model_len: 32768,
  },
  { name: 'sim-legacy-chat', kind: 'chat', max_model_len: 256 },
  { name: 'sim-embed-384', kind: 'embedding', embedding_dims: 384, max_model_len: 512, matryoshka: true },
  { name: 'sim-embed-fixed', kind: 'embedding', embedding_dims: 8, max_model_len: 512 },
]

/** Zero latency unless a suite says otherwise: tests must not depend on timing. */
export function startTestSimulator(overrides: Partial<SimConfigInput> = {}): Promise<RunningSimulator> {
  return startSimulator({ models: testModels, latency: { ttft_ms: 0, itl_ms: 0, jitter: 0 }, ...overrides })
}

export interface TopLogprob {
  token: string
  logprob: number
  bytes: number[]
}

export interface Logprob extends TopLogprob {
  top_logprobs: TopLogprob[]
}

export interface ToolCall {
  id?: string
  index?: number
  type?: string
  function: { name?: string; arguments: string }
}

export interface Usage {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
  prompt_tokens_details: { cached_tokens: number } | null
}

export interface Message {
  role: string
  content: string | null
  reasoning?: string | null
  reasoning_content?: string | null
  tool_calls: ToolCall[]
}

export interface ChatCompletion {
  id: string
  object: string
  model: string
  choices: Array<{ index: number; message: Message; logprobs: { content: Logprob[] } | null; finish_reason: string }>
  usage: Usage
}

export interface ChatChunk {
  id: string
  object: string
  created: number
  model: string
  choices: Array<{
    index: number
    delta: { role?: string; content?: string; reasoning?: string; reasoning_content?: string; tool_calls?: ToolCall[] }
    logprobs: { content: Logprob[] } | null
    finish_reason: string | null
  }>
  usage?: Usage
}

export interface ErrorReply {
  error: { message: string; type: string; param: string | null; code: number }
}

export async function postJson<T = ChatCompletion>(
  sim: RunningSimulator,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as T }
}

export async function postError(
  sim: RunningSimulator,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return postJson<ErrorReply>(sim, path, body, headers)
}

export interface SseResult<T> {
  status: number
  /** Parsed `data:` payloads, in order; `[DONE]` appears as the string '[DONE]'. */
  events: Array<T | '[DONE]'>
  /** Set when the connection died before the body ended. */
  error: unknown
}

export async function postStream<T = ChatChunk>(
  sim: RunningSimulator,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<SseResult<T>> {
  const res = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  const { text, error } = await readAll(res)
  return { status: res.status, events: parseSse<T>(text), error }
}

/** Reads a body to its end, keeping what arrived before a cut. */
async function readAll(res: Response): Promise<{ text: string; error: unknown }> {
  let text = ''
  if (!res.body) return { text, error: undefined }
  const decoder = new TextDecoder()
  const reader = res.body.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return { text, error: undefined }
      text += decoder.decode(value, { stream: true })
    }
  } catch (error) {
    return { text, error }
  }
}

export function parseSse<T>(text: string): Array<T | '[DONE]'> {
  const events: Array<T | '[DONE]'> = []
  for (const block of text.split('\n\n')) {
    const line = block.trim()
    if (!line.startsWith('data: ')) continue
    const data = line.slice(6)
    events.push(data === '[DONE]' ? '[DONE]' : (JSON.parse(data) as T))
  }
  return events
}

/** The chunks of a stream without the closing `[DONE]`. */
export function chunksOf<T>(events: Array<T | '[DONE]'>): T[] {
  return events.filter((event): event is T => event !== '[DONE]')
}

export function chatBody(content: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'sim-instruct-8b', messages: [{ role: 'user', content }], ...extra }
}

export async function metricsText(sim: RunningSimulator): Promise<string> {
  return (await fetch(`${sim.url}/metrics`)).text()
}

/** One sample's value from the Prometheus text, e.g. metricValue(text, 'vllm:num_requests_waiting', 'sim-x'). */
export function metricValue(text: string, name: string, model: string, extraLabel = ''): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue
    if (!line.includes(`model_name="${model}"`)) continue
    if (extraLabel && !line.includes(extraLabel)) continue
    return Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return undefined
}

/** Polls until `check` holds (for states reached asynchronously, never for timing). */
export async function eventually(check: () => Promise<boolean>, what: string, attempts = 200): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`never happened: ${what}`)
}

/** Formats the generated JSON claims to follow, checked for real (ajv-formats is not a dependency). */
export const testFormats = {
  email: /^[^@\s]+@[^@\s]+\.[a-z]+$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  'date-time': (text: string): boolean => /^\d{4}-\d\d-\d\dT/.test(text) && !Number.isNaN(Date.parse(text)),
}
