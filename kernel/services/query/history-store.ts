// PLACEHOLDER (being built on branch query-history): keeps nothing.
import type { ConversationHistory } from './history.js'
import type { QueryStoreOptions } from './query-services.js'

export async function openHistory(_options: QueryStoreOptions): Promise<ConversationHistory & { close(): Promise<void> }> {
  return { recent: async () => [], append: async () => {}, close: async () => {} }
}
