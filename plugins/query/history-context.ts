/**
 * The conversation history of a query's prompt (spec 001 rule 6; docs/api-reference.md,
 * "Query service: history"). A caller-supplied `history` replaces the stored turns when it is
 * sent (an empty array means "no history"); otherwise stored turns are read only with
 * `enable_history` and a `session_id`. The newest turns are kept first within the token
 * budget, and the first that does not fit stops the walk, so the history stays one unbroken
 * stretch ending at the present; it is returned oldest first, as the prompt wants it.
 */
import type { ConversationHistory, HistoryTurn } from '../../domains/query/history.js'

export interface HistoryMessage {
  role: 'user' | 'assistant'
  content: string
}

/** Stored turns read per query at most; the store's own cap (server.yaml query.history_max_turns) is usually lower. */
const MAX_STORED_TURNS = 1000

export async function historyContext(
  history: ConversationHistory,
  o: {
    projectId: string
    sessionId?: string
    enabled: boolean
    supplied?: readonly { role: 'user' | 'assistant'; content: string }[]
    budgetTokens: number
    countTokens(text: string): number
    /** Stored turns read at most (default 1000). */
    maxTurns?: number
  },
): Promise<{ messages: HistoryMessage[]; tokens: number }> {
  let candidates: readonly { role: 'user' | 'assistant'; content: string }[]
  if (o.supplied !== undefined) candidates = o.supplied
  else if (o.enabled && o.sessionId)
    candidates = await history.recent(o.projectId, o.sessionId, o.maxTurns ?? MAX_STORED_TURNS)
  else candidates = []
  const kept: HistoryMessage[] = []
  let tokens = 0
  for (let i = candidates.length - 1; i >= 0; i--) {
    const { role, content } = candidates[i]!
    const n = o.countTokens(content)
    if (tokens + n > o.budgetTokens) break
    tokens += n
    kept.push({ role, content })
  }
  return { messages: kept.reverse(), tokens }
}

/** Keeps a query and its answer as two turns of the session, in one atomic append. */
export async function rememberTurn(
  history: ConversationHistory,
  o: { projectId: string; sessionId: string; queryId: string; query: string; answer: string; at: number },
): Promise<void> {
  const turns: HistoryTurn[] = [
    { role: 'user', content: o.query, at: o.at, queryId: o.queryId },
    { role: 'assistant', content: o.answer, at: o.at, queryId: o.queryId },
  ]
  await history.append(o.projectId, o.sessionId, turns)
}
