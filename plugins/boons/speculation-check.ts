/**
 * The check of the speculation boon: the large model reads the conversation, the draft as its
 * own reply, and one question, and answers with one token, `yes` or `no`. That is one prefill
 * pass over what it would have read anyway (and its prefix cache keeps the conversation for a
 * rejected draft's own answer) plus a single output token, instead of a whole reply. Its top
 * logprobs give the probability of `yes`, so an operator can ask for more certainty than the
 * most likely token. Pure functions: what to ask, and how to read the answer.
 */

export interface CheckMessage {
  role: string
  content?: unknown
}

/** The line that ends the question: the verdict prompt's form, which servers (and the simulator) answer with one label. */
export const LABEL_LINE = 'Answer with exactly one of these labels: yes, no.'

/** How many top logprobs the check asks for: enough to find both labels and their spellings. */
export const CHECK_TOP_LOGPROBS = 10

/** The check's messages: the conversation, the draft as the assistant's reply, then the question. */
export function checkMessages(conversation: readonly CheckMessage[], draft: string, question: string): CheckMessage[] {
  return [
    ...conversation,
    { role: 'assistant', content: draft },
    { role: 'user', content: `${question}\n${LABEL_LINE}` },
  ]
}

interface TopLogprob {
  token?: unknown
  logprob?: unknown
}

/** The part of a one-token chat reply the check reads. */
export interface CheckReply {
  choices?: {
    message?: { content?: unknown }
    logprobs?: { content?: { token?: unknown; logprob?: unknown; top_logprobs?: TopLogprob[] }[] } | null
  }[]
}

export interface CheckVerdict {
  /** Probability of `yes` over `yes` and `no`; undefined when neither label was seen. */
  yes: number | undefined
  accepted: boolean
}

/** `Yes`, ` yes`, `YES.` all say yes: spelling variants of one label add up, as for verdicts. */
function label(token: unknown): 'yes' | 'no' | undefined {
  if (typeof token !== 'string') return undefined
  const folded = token
    .trim()
    .toLowerCase()
    .replace(/[^a-z]/g, '')
  return folded === 'yes' || folded === 'no' ? folded : undefined
}

/**
 * Reads the large model's answer: with top logprobs, the draft is accepted when the share of
 * `yes` in the probability of both labels is at least `minYes`; without them (a server that
 * sends none), when the one token is `yes`. Anything else (no label at all) rejects the draft.
 */
export function readCheck(body: CheckReply, minYes: number): CheckVerdict {
  const choice = body.choices?.[0]
  const first = choice?.logprobs?.content?.[0]
  const mass = { yes: 0, no: 0 }
  for (const entry of first?.top_logprobs ?? []) {
    const which = label(entry.token)
    if (which && typeof entry.logprob === 'number') mass[which] += Math.exp(entry.logprob)
  }
  if (mass.yes + mass.no > 0) {
    const yes = mass.yes / (mass.yes + mass.no)
    return { yes, accepted: yes >= minYes }
  }
  const token = label(first?.token ?? choice?.message?.content)
  return { yes: token === undefined ? undefined : token === 'yes' ? 1 : 0, accepted: token === 'yes' }
}
