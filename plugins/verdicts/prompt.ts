/**
 * The prompt of one question. Everything shared by the questions of a request comes first and
 * is byte-for-byte the same for each of them — the instructions to the judge, then the state
 * and the images — and the question comes last, so the model server's prefix cache computes
 * the shared part once and every other question reuses it (reported as cached tokens).
 */
import type { Question } from './question.js'

type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }

export interface ChatMessage {
  role: 'system' | 'user'
  content: string | ContentPart[]
}

const JUDGE =
  'You judge content. You are given the content, then one question about it with a list of answer labels. ' +
  'Reply with exactly one of the labels and nothing else: no explanation, no punctuation.'

/** Strings are used as written; objects and arrays become indented JSON. */
export function renderState(state: string | object): string {
  return typeof state === 'string' ? state : JSON.stringify(state, null, 2)
}

/** The messages every question of the request starts with. */
export function sharedMessages(state: string | undefined, images: readonly string[]): ChatMessage[] {
  const parts: ContentPart[] = [
    {
      type: 'text',
      text: state === undefined ? 'Content to judge: the attached images.' : `Content to judge:\n\n${state}`,
    },
  ]
  for (const url of images) parts.push({ type: 'image_url', image_url: { url } })
  return [
    { role: 'system', content: JUDGE },
    { role: 'user', content: parts },
  ]
}

/** The last line of every question: the simulator, like a model, reads the labels from it. */
export function labelLine(labels: readonly string[]): string {
  return `Answer with exactly one of these labels: ${labels.join(', ')}.`
}

/** The question message: the instructions, what each label means, and the label line. */
export function questionMessage(q: Question): ChatMessage {
  const lines = [`Question: ${q.instructions}`, '']
  switch (q.type) {
    case 'boolean': {
      // Yes first reads naturally; the answer order (false, true) is only the response's.
      lines.push(
        `Yes: ${q.descriptions[1] ?? 'the answer is true'}`,
        `No: ${q.descriptions[0] ?? 'the answer is false'}`,
      )
      break
    }
    case 'choice':
      lines.push('Options:')
      q.answers.forEach((name, i) =>
        lines.push(`${q.labels[i]}: ${name}${q.descriptions[i] ? ` (${q.descriptions[i]})` : ''}`),
      )
      break
    case 'score':
      lines.push('Levels, from lowest to highest:')
      q.answers.forEach((level, i) => lines.push(`${q.labels[i]}: ${level}`))
      break
  }
  const labels = q.type === 'boolean' ? ['Yes', 'No'] : q.labels
  lines.push('', labelLine(labels))
  return { role: 'user', content: lines.join('\n') }
}
