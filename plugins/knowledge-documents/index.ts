/**
 * knowledge-documents: the documents of a collection. `put` adds or replaces `:source_name`
 * from JSON (`text`, or `content_base64` with `content_type`); `upload` does the same from a
 * multipart form read by `multipart-upload` (the file, and `source_name`, `url`, `tags`,
 * `metadata` fields); `list` and `delete`. Ingestion is read → chunk → embed (through the
 * `embeddings` route) → one atomic upsert: a failure anywhere leaves the collection as it was,
 * and the same `source_name` sent again replaces the document and all its chunks.
 */
import {
  GatewayError,
  definePlugin,
  describeErrors,
  reply,
  validatorFor,
  type Exchange,
} from '../../kernel/contract/index.js'
import type { Metadata } from '../../domains/query/knowledge/model.js'
import type { StoredDocument } from '../../domains/query/knowledge/store.js'
import type { DocumentBytes } from '../../domains/query/knowledge/readers/read-document.js'
import { textContentType } from '../../domains/query/knowledge/knowledge-base.js'
import { embeddingPrincipal, embedThroughRoute } from '../../domains/query/knowledge/embed-route.js'
import type { DocumentView } from '../../schemas/knowledge-response.schema.js'
import { configSchema, documentFields, putDocumentBody, type KnowledgeDocumentsConfig } from './schema.js'

interface Fields {
  url?: string
  tags?: string[]
  metadata?: Metadata
}

function documentView(d: StoredDocument): DocumentView {
  return {
    object: 'knowledge.document',
    source_name: d.sourceName,
    url: d.url,
    tags: [...d.tags],
    metadata: d.metadata,
    chunks: d.chunks,
    updated_at: new Date(d.updatedAt).toISOString(),
  }
}

const bad = (message: string) => new GatewayError(400, message, { code: 'invalid_request' })

/** A form field that holds JSON (`tags`, `metadata`); `tags` may also be repeated or comma-separated. */
function formFields(fields: Record<string, string | string[]>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const one = (name: string) => {
    const v = fields[name]
    return Array.isArray(v) ? v[v.length - 1] : v
  }
  const url = one('url')
  if (url !== undefined) out.url = url
  const tags = fields.tags ?? fields['tags[]']
  if (tags !== undefined) {
    const list = Array.isArray(tags)
      ? tags
      : tags.trim().startsWith('[')
        ? parseJson('tags', tags)
        : tags
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean)
    out.tags = list
  }
  const metadata = one('metadata')
  if (metadata !== undefined) out.metadata = parseJson('metadata', metadata)
  for (const name of Object.keys(fields)) {
    if (!['url', 'tags', 'tags[]', 'metadata', 'source_name'].includes(name))
      throw bad(`unknown form field ${JSON.stringify(name)}: expected source_name, url, tags, metadata`)
  }
  return out
}

function parseJson(name: string, text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw bad(`form field ${name} is not valid JSON`)
  }
}

/** Standard base64 only, so a typo is a 400 rather than silently different bytes. */
function decodeBase64(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 !== 0) throw bad('content_base64 is not valid base64')
  return Buffer.from(clean, 'base64')
}

export default definePlugin({
  name: 'knowledge-documents',
  config: configSchema,
  requires: ['admin'],
  setup(config, kernel) {
    const validatePut = validatorFor(putDocumentBody)
    const validateFields = validatorFor(documentFields)
    const kb = () => kernel.domains.query.knowledge
    const ingest = async (ex: Exchange, sourceName: string, fields: Fields, content: DocumentBytes) => {
      const principal = embeddingPrincipal(kernel.keys, kb().settings.embeddingKey)
      const embed = embedThroughRoute(
        (id, b, o) => kernel.call(id, b, o),
        kernel.domains.query.routes.embeddings,
        principal,
        { signal: ex.signal, parentId: ex.id },
        (model) => kernel.catalog.model(model)?.context_window,
      )
      const doc = await kb().ingest(
        ex.params.project ?? '',
        ex.params.collection ?? '',
        { sourceName, ...fields },
        content,
        embed,
        ex.signal,
      )
      ex.reply = reply.json(documentView(doc))
    }
    const actions: Record<KnowledgeDocumentsConfig['action'], (ex: Exchange) => Promise<void>> = {
      async put(ex) {
        const body = structuredClone(ex.body ?? {})
        if (!validatePut(body))
          throw bad(
            `invalid request: ${describeErrors(validatePut.errors)} (give text, or content_base64 with content_type)`,
          )
        const b = body as { text?: string; content_base64?: string; content_type?: string } & Fields
        const sourceName = ex.params.source_name ?? ''
        const content: DocumentBytes =
          b.text !== undefined
            ? {
                bytes: new TextEncoder().encode(b.text),
                contentType: textContentType(sourceName, b.content_type),
                fileName: sourceName,
              }
            : { bytes: decodeBase64(b.content_base64!), contentType: b.content_type, fileName: sourceName }
        await ingest(ex, sourceName, { url: b.url, tags: b.tags, metadata: b.metadata }, content)
      },
      async upload(ex) {
        const upload = ex.state.upload
        if (!upload)
          throw new GatewayError(500, 'internal error', {
            cause: new Error('knowledge-documents `upload` needs multipart-upload before it'),
          })
        const named = upload.fields.source_name
        const sourceName = (Array.isArray(named) ? named[named.length - 1] : named) ?? upload.file.filename
        if (!sourceName) throw bad('source_name is required (a form field, or the file name)')
        const fields = formFields(upload.fields)
        if (!validateFields(fields)) throw bad(`invalid request: ${describeErrors(validateFields.errors)}`)
        await ingest(ex, sourceName, fields as Fields, {
          bytes: upload.file.data,
          contentType: upload.file.contentType,
          fileName: upload.file.filename,
        })
      },
      async list(ex) {
        const docs = await kb().listDocuments(ex.params.project ?? '', ex.params.collection ?? '')
        ex.reply = reply.json({ object: 'list', data: docs.map(documentView) })
      },
      async delete(ex) {
        const sourceName = ex.params.source_name ?? ''
        await kb().deleteDocument(ex.params.project ?? '', ex.params.collection ?? '', sourceName)
        ex.reply = reply.json({ object: 'knowledge.document.deleted', source_name: sourceName, deleted: true })
      },
    }
    const run = actions[config.action]
    return {
      async request(ex) {
        await run(ex)
      },
    }
  },
})
