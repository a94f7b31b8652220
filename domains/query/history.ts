/**
 * Conversation history of the Query service (spec 001 rule 6): with `enable_history` and a
 * `session_id`, each query and its answer are kept per project and session, and the earlier
 * turns go into the next prompt within a token budget. The text is the client's own and is
 * kept only here (never in records or logs), for a bounded time.
 */
export interface HistoryTurn {
  readonly role: 'user' | 'assistant'
  readonly content: string
  /** Epoch ms. */
  readonly at: number
  /** The query that made the turn. */
  readonly queryId: string
}

export interface ConversationHistory {
  /** The session's most recent turns, oldest first, at most `limit`. */
  recent(projectId: string, sessionId: string, limit: number): Promise<HistoryTurn[]>
  /** Appends turns (the query and its answer) to the session, atomically. */
  append(projectId: string, sessionId: string, turns: readonly HistoryTurn[]): Promise<void>
}
