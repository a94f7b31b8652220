/**
 * The embedded default's provider: no outside engine, so "web search" searches a knowledge-base
 * collection (lexical leg only: no embedding call, so a search costs no model time) and says so
 * in every result's url (`kb://project/collection/source`) and in its description. Nothing
 * leaves the machine.
 */
import type { KnowledgeBase } from '../knowledge/knowledge-base.js'
import { searchCollection } from '../knowledge/search/search-collection.js'
import type { WebSearchProvider } from './results.js'

export interface LocalSettings {
  readonly project: string
  readonly collection: string
}

/** A snippet is the passage's first characters, as search engines show a snippet. */
const SNIPPET_CHARS = 1200

export function localProvider(
  knowledge: KnowledgeBase,
  settings: LocalSettings,
  warn: (message: string) => void,
): WebSearchProvider {
  let warned = false
  return {
    name: 'local',
    description: `not the web: results from the local knowledge-base collection ${settings.project}/${settings.collection}`,
    async search(query, maxResults, caller) {
      // A missing collection is the deployment's state, not the client's mistake (nor a fault of
      // the gateway's): no results, and the operator is told in the log, once until it exists.
      const exists = await knowledge.getCollection(settings.project, settings.collection).then(
        () => true,
        (err: unknown) => {
          if ((err as { status?: number }).status !== 404) throw err
          return false
        },
      )
      if (!exists) {
        if (!warned)
          warn(
            `web search: the local provider's collection ${settings.project}/${settings.collection} does not exist; searches find nothing`,
          )
        warned = true
        return []
      }
      warned = false
      const found = await searchCollection(
        {
          project: settings.project,
          collection: settings.collection,
          query,
          top_k: maxResults,
          retrieval_type: 'chunk',
          legs: 'lexical',
        },
        {
          maxTopK: Math.max(1, maxResults),
          neighborWindow: 0,
          variants: 0,
          variantsModel: '',
          rerankCandidates: maxResults,
        },
        {
          knowledge,
          // Never called (see `call`); named so the context is whole.
          routes: { chat: '', embeddings: '', rerank: '' },
          // The lexical leg calls no model; a route call here would be a defect.
          call: () => Promise.reject(new Error('the local web search provider calls no model')),
          modelOf: () => undefined,
          principal: caller.principal,
          signal: caller.signal,
        },
      )
      return found.passages.map((p) => ({
        title: p.sourceName,
        url: `kb://${settings.project}/${settings.collection}/${encodeURIComponent(p.sourceName)}`,
        content: Array.from(p.text).slice(0, SNIPPET_CHARS).join(''),
        score: p.score,
      }))
    },
  }
}
