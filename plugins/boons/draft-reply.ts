/**
 * An accepted draft as the client's reply: a chat completion, or (when the client asked to
 * stream) the same text as a chat completion stream. The reply names the large model in
 * `model` (its server's name, as its own answer would), since the large model vouched for it;
 * its `usage` is the draft's, the tokens of the text the client got (plugins/boons/README.md).
 */
import type { StreamEvent } from '../../kernel/contract/index.js'

export interface DraftCompletion {
  id?: unknown
  created?: unknown
  choices?: { message?: { content?: unknown }; finish_reason?: unknown }[]
  usage?: Record<string, unknown>
  system_fingerprint?: unknown
}

interface Shape {
  /** What `model` says: the large model's server name. */
  model: string
  /** The stream's last event carries usage (the client's `stream_options.include_usage`). */
  includeUsage: boolean
}

/** The draft's text, or undefined when it has none (nothing to check). */
export function draftText(draft: DraftCompletion): string | undefined {
  const content = draft.choices?.[0]?.message?.content
  return typeof content === 'string' && content.trim() !== '' ? content : undefined
}

const idOf = (draft: DraftCompletion) =>
  typeof draft.id === 'string' ? draft.id : `chatcmpl-${Date.now().toString(36)}`
const createdOf = (draft: DraftCompletion) =>
  typeof draft.created === 'number' ? draft.created : Math.floor(Date.now() / 1000)

export function draftCompletion(draft: DraftCompletion, text: string, shape: Shape): Record<string, unknown> {
  return {
    id: idOf(draft),
    object: 'chat.completion',
    created: createdOf(draft),
    model: shape.model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: 'stop' }],
    ...(draft.usage ? { usage: draft.usage } : {}),
  }
}

/** Words with the space before them, as a server's tokens come: the stream's content pieces. */
const PIECES = /\s*\S+/g

/** The draft as a stream: the role, the text in word-sized pieces, the finish, then usage if asked. */
export async function* draftStream(draft: DraftCompletion, text: string, shape: Shape): AsyncIterable<StreamEvent> {
  const head = { id: idOf(draft), object: 'chat.completion.chunk', created: createdOf(draft), model: shape.model }
  yield {
    ...head,
    choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
  }
  for (const piece of text.match(PIECES) ?? [text])
    yield { ...head, choices: [{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }] }
  const trailing = text.match(/\s+$/)?.[0]
  if (trailing)
    yield { ...head, choices: [{ index: 0, delta: { content: trailing }, logprobs: null, finish_reason: null }] }
  yield { ...head, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }] }
  if (shape.includeUsage && draft.usage) yield { ...head, choices: [], usage: draft.usage }
}
