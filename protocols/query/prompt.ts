/**
 * The prompt of a query, in the order a model reads it: the system message (system prompt,
 * enhancement, the prompt mode's instruction), the conversation's earlier turns, then the user
 * message (retrieved context, in-context files, images, the query). Each part's text is kept
 * apart too, so `usage_metric` can say where the tokens went.
 *
 * `prompt_mode`: `restricted` answers from the context only and says so when it has no answer;
 * `unrestricted` may also use the model's own knowledge; `custom` is the caller's template with
 * `{data}` (the context) and `{query}` (the question) filled in, as the user message.
 * `default` (the compare route's name) is `restricted`.
 */
import type { InputPart } from './usage-metric.js'

export interface PromptPassage {
  readonly sourceName: string
  readonly pageNumber?: number | null
  readonly text: string
}

export interface PromptInput {
  readonly query: string
  readonly systemPrompt: string
  readonly enhancement: readonly string[]
  readonly mode: 'restricted' | 'unrestricted' | 'custom' | 'default'
  readonly template?: string
  /** Retrieved passages; undefined when search is off. */
  readonly passages?: readonly PromptPassage[]
  readonly history: readonly { role: 'user' | 'assistant'; content: string }[]
  /** Text of in-context documents and audio transcripts. */
  readonly inContextText: string
  readonly imageParts: readonly { type: 'image_url'; image_url: { url: string } }[]
}

export type ChatMessage =
  | { role: 'system' | 'assistant'; content: string }
  | {
      role: 'user'
      content: string | ({ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } })[]
    }

export interface BuiltPrompt {
  readonly messages: ChatMessage[]
  /** The text of each part, to be counted (the wrappers around them count as system_prompt). */
  readonly parts: Record<InputPart, string>
}

const INSTRUCTIONS = {
  restricted:
    'Answer the question using only the context below. If the context does not contain the answer, say that the answer is not in the provided documents, and do not guess.',
  unrestricted: 'Use the context below where it helps; you may also answer from your own knowledge.',
} as const

/** The retrieved passages as the model reads them: numbered, each with its source and page. */
export function contextBlock(passages: readonly PromptPassage[]): string {
  return passages
    .map((p, i) => `[${i + 1}] ${p.sourceName}${p.pageNumber != null ? ` (page ${p.pageNumber})` : ''}\n${p.text}`)
    .join('\n\n')
}

export function buildPrompt(input: PromptInput): BuiltPrompt {
  const data = input.passages ? contextBlock(input.passages) : ''
  const mode = input.mode === 'default' ? 'restricted' : input.mode
  const system = [input.systemPrompt, ...input.enhancement]
  if (input.passages && mode !== 'custom') system.push(INSTRUCTIONS[mode])
  const systemText = system.filter((s) => s !== '').join('\n\n')
  let userText: string
  let templateWords = ''
  if (input.passages && mode === 'custom' && input.template !== undefined) {
    // Placeholders are filled once each, left to right, so text inside `data` is never re-read as one.
    userText = input.template.replace(/\{data\}|\{query\}/g, (m) => (m === '{data}' ? data : input.query))
    templateWords = input.template.replace(/\{data\}|\{query\}/g, ' ')
    if (input.inContextText) userText = `${input.inContextText}\n\n${userText}`
  } else {
    const blocks: string[] = []
    if (input.passages) blocks.push(`Context:\n${data || '(no passages were found)'}`)
    if (input.inContextText) blocks.push(`Files:\n${input.inContextText}`)
    blocks.push(blocks.length ? `Question: ${input.query}` : input.query)
    userText = blocks.join('\n\n')
  }
  const user: ChatMessage = input.imageParts.length
    ? { role: 'user', content: [{ type: 'text', text: userText }, ...input.imageParts] }
    : { role: 'user', content: userText }
  const messages: ChatMessage[] = [
    ...(systemText ? [{ role: 'system' as const, content: systemText }] : []),
    ...input.history,
    user,
  ]
  return {
    messages,
    parts: {
      user_query: input.query,
      incontext_text: input.inContextText,
      system_prompt: [systemText, templateWords].filter(Boolean).join('\n'),
      knowledge_base: data,
      conversation_history: input.history.map((h) => h.content).join('\n'),
    },
  }
}
