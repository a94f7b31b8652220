/**
 * knowledge-collections: a project's collections (create, list, delete). Creating one embeds a
 * probe with its embedding model (through the `embeddings` route) to learn and fix its
 * dimension. A collection of another project answers exactly as a missing one: 404.
 */
import {
  GatewayError,
  definePlugin,
  describeErrors,
  reply,
  validatorFor,
  type Exchange,
} from '../../kernel/contract/index.js'
import type { CollectionInfo } from '../../domains/query/knowledge/store.js'
import { embeddingPrincipal, embedThroughRoute } from '../../domains/query/knowledge/embed-route.js'
import type { CollectionView } from '../../schemas/knowledge-response.schema.js'
import { configSchema, createCollectionBody, type KnowledgeCollectionsConfig } from './schema.js'

export function collectionView(c: CollectionInfo): CollectionView {
  return {
    object: 'knowledge.collection',
    name: c.name,
    embedding_model: c.embeddingModel,
    dimension: c.dimension,
    documents: c.documents,
    chunks: c.chunks,
    created_at: new Date(c.createdAt).toISOString(),
  }
}

export default definePlugin({
  name: 'knowledge-collections',
  config: configSchema,
  requires: ['admin'],
  setup(config, kernel) {
    const validate = validatorFor(createCollectionBody)
    const kb = () => kernel.domains.query.knowledge
    const actions: Record<KnowledgeCollectionsConfig['action'], (ex: Exchange, project: string) => Promise<void>> = {
      async create(ex, project) {
        const body = structuredClone(ex.body ?? {})
        if (!validate(body))
          throw new GatewayError(400, `invalid request: ${describeErrors(validate.errors)}`, {
            code: 'invalid_request',
          })
        const { name, embedding_model } = body as { name: string; embedding_model?: string }
        const principal = embeddingPrincipal(kernel.keys, kb().settings.embeddingKey)
        const embed = embedThroughRoute(
          (id, b, o) => kernel.call(id, b, o),
          kernel.domains.query.routes.embeddings,
          principal,
          { signal: ex.signal, parentId: ex.id },
          (model) => kernel.catalog.model(model)?.context_window,
        )
        ex.reply = reply.json(collectionView(await kb().createCollection(project, name, embedding_model, embed)), 201)
      },
      async list(ex, project) {
        ex.reply = reply.json({ object: 'list', data: (await kb().listCollections(project)).map(collectionView) })
      },
      async delete(ex, project) {
        const name = ex.params.collection ?? ''
        await kb().deleteCollection(project, name)
        ex.reply = reply.json({ object: 'knowledge.collection.deleted', name, deleted: true })
      },
    }
    const run = actions[config.action]
    return {
      async request(ex) {
        await run(ex, ex.params.project ?? '')
      },
    }
  },
})
