/**
 * Verdict prompts: a one-token request with top logprobs whose last message ends with the line
 * `Answer with exactly one of these labels: A, B, C.` (the gateway's verdict prompt, or any
 * client's). A real model answers such a prompt with one of the labels, and its top logprobs
 * spread over the labels and their spelling variants. The simulator does the same, with a
 * distribution drawn from the prompt's seed, so the same prompt always gets the same answer.
 *
 * Markers anywhere in the prompt's text steer it, for tests (docs/simulator.md):
 *   [sim-verdict: prefer=B]        label B is the most likely answer
 *   [sim-verdict: omit=C]          label C (every variant) stays out of the top logprobs
 *   [sim-verdict: uniform]         every label equally likely (a model with no idea)
 *   [sim-verdict: no-logprobs]     the reply carries `logprobs: null`, as a server without them
 *   [sim-verdict: unrecognizable]  the first token is no label, and no label is among the top
 * Directives may be combined in one marker, separated by commas or spaces.
 */
import type { ChatRequest } from './chat-request.js'
import { logprobEntry, type ChatLogprob } from './logprobs.js'
import type { SeededRandom } from './seeded-random.js'

export interface VerdictAnswer {
  /** The generated token: the most likely entry. */
  token: string
  /** One entry (the single token), or undefined for `no-logprobs`. */
  logprobs: ChatLogprob[] | undefined
}

interface Directives {
  prefer: string | undefined
  omit: Set<string>
  uniform: boolean
  noLogprobs: boolean
  unrecognizable: boolean
}

const LABEL_LINE = /Answer with exactly one of these labels: ([^\n]+?)\.?\s*$/
const MARKER = /\[sim-verdict:([^\]]*)\]/g

/** Tokens a model might start with instead of a label; none folds to a label (a letter, a digit, Yes, No). */
const FILLERS = [
  'The',
  'Based',
  'Answer',
  'Looking',
  '**',
  'Label',
  'Option',
  'After',
  'Sure',
  'Here',
  'Given',
  'Okay',
  'From',
  'This',
  'It',
  'In',
  'To',
  'My',
  'Let',
  'Final',
  'Considering',
  'Well',
  'Hmm',
  'Yeah',
  'None',
  'Both',
  'Neither',
  'Maybe',
]

function readDirectives(request: ChatRequest): Directives {
  const d: Directives = { prefer: undefined, omit: new Set(), uniform: false, noLogprobs: false, unrecognizable: false }
  for (const message of request.messages) {
    for (const match of message.text.matchAll(MARKER)) {
      for (const word of (match[1] ?? '').split(/[\s,]+/).filter(Boolean)) {
        const [key, value] = word.split('=') as [string, string | undefined]
        if (key === 'prefer' && value) d.prefer = value
        else if (key === 'omit' && value) d.omit.add(value)
        else if (key === 'uniform') d.uniform = true
        else if (key === 'no-logprobs') d.noLogprobs = true
        else if (key === 'unrecognizable') d.unrecognizable = true
      }
    }
  }
  return d
}

/** The labels of a verdict prompt, or undefined when the request is not one. */
export function verdictLabels(request: ChatRequest): string[] | undefined {
  if (request.maxTokens !== 1 || !request.logprobs || request.topLogprobs === 0) return undefined
  if (request.responseFormat.kind !== 'text' || request.tools.length > 0) return undefined
  const match = LABEL_LINE.exec(request.messages.at(-1)?.text ?? '')
  const labels = match?.[1]
    ?.split(',')
    .map((l) => l.trim())
    .filter(Boolean)
  return labels && labels.length > 0 ? labels : undefined
}

/** Probability of each label: a winner and a seeded spread over the rest, or uniform. */
function labelShares(labels: readonly string[], d: Directives, random: SeededRandom): number[] {
  const open = labels.map((l) => !d.omit.has(l))
  if (d.uniform) return labels.map((_, i) => (open[i] ? 1 : 0))
  const candidates = labels.map((_, i) => i).filter((i) => open[i])
  const preferred = d.prefer === undefined ? -1 : labels.indexOf(d.prefer)
  const winner = preferred >= 0 ? preferred : (candidates[random.int(0, Math.max(0, candidates.length - 1))] ?? 0)
  const rest = labels.map((_, i) => (open[i] && i !== winner ? 0.05 + random.next() : 0))
  const restTotal = rest.reduce((s, v) => s + v, 0)
  const winShare = restTotal === 0 ? 1 : 0.55 + random.next() * 0.4
  return labels.map((_, i) => (i === winner ? winShare : restTotal === 0 ? 0 : ((1 - winShare) * rest[i]!) / restTotal))
}

export function planVerdictAnswer(request: ChatRequest, random: SeededRandom): VerdictAnswer | undefined {
  const labels = verdictLabels(request)
  if (!labels) return undefined
  const d = readDirectives(request)
  const entries: Array<{ token: string; p: number }> = []
  // How much of the whole vocabulary's probability lands on labels.
  const onLabels = d.unrecognizable ? 0 : 0.9 + random.next() * 0.09
  const shares = labelShares(labels, d, random)
  const shareTotal = shares.reduce((s, v) => s + v, 0) || 1
  labels.forEach((label, i) => {
    const mass = (onLabels * shares[i]!) / shareTotal
    if (mass <= 0) return
    if (d.uniform) return void entries.push({ token: label, p: mass })
    // Spelling variants of one label, as a real vocabulary has them: the gateway adds them up.
    const lower = label.toLowerCase()
    entries.push({ token: label, p: mass * 0.85 }, { token: ` ${label}`, p: mass * (lower === label ? 0.15 : 0.1) })
    if (lower !== label) entries.push({ token: lower, p: mass * 0.05 })
  })
  // The rest of the vocabulary, most likely first, enough to fill the list.
  let left = 1 - onLabels
  for (const token of FILLERS)
    if (!labels.some((l) => l.toLowerCase() === token.toLowerCase())) entries.push({ token, p: (left /= 2) })
  entries.sort((a, b) => b.p - a.p)
  const top = entries.slice(0, request.topLogprobs)
  const token = top[0]!.token
  return {
    token,
    logprobs: d.noLogprobs ? undefined : [logprobEntry(top.map((e) => ({ token: e.token, logprob: Math.log(e.p) })))],
  }
}
