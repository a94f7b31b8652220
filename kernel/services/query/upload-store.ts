// PLACEHOLDER (being built on branch query-history): keeps nothing.
import type { ChatUploads } from './uploads.js'
import type { QueryStoreOptions } from './query-services.js'

export async function openUploads(_options: QueryStoreOptions): Promise<ChatUploads & { close(): Promise<void> }> {
  return { put: async () => {}, get: async (_p, _s, _q, names) => ({ files: [], missing: [...names] }), close: async () => {} }
}
