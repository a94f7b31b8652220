// PLACEHOLDER (being built on branch query-history): the caller's history only; nothing is kept.
import type { ConversationHistory } from '../../kernel/services/query/history.js'

type Turn = { role: 'user' | 'assistant'; content: string }

export async function historyContext(
  _history: ConversationHistory,
  o: { projectId: string; sessionId?: string; enabled: boolean; supplied?: readonly Turn[]; budgetTokens: number; countTokens(text: string): number },
): Promise<{ messages: Turn[]; tokens: number }> {
  const messages = [...(o.supplied ?? [])]
  return { messages, tokens: messages.reduce((s, m) => s + o.countTokens(m.content), 0) }
}

export async function rememberTurn(
  _history: ConversationHistory,
  _o: { projectId: string; sessionId: string; queryId: string; query: string; answer: string; at: number },
): Promise<void> {}
