/**
 * query-upload: the chat upload of the Query service (spec 001 rule 7; docs/api-reference.md,
 * "Query service: chat upload"). The files of a multipart form (read by `multipart-upload`
 * with `file_fields: [images, docs, audios]`) are checked against server.yaml `query.uploads`,
 * made ready for a prompt (images as data URLs, documents as their text, audio as its
 * transcript through the gateway's transcription route) and kept for the project's session
 * under a new `query_id` until they expire. Everything is checked before any file is read or
 * transcribed, so a refused upload costs nothing and stores nothing.
 */
import crypto from 'node:crypto'
import { setMaxListeners } from 'node:events'
import { GatewayError, definePlugin, reply } from '../../kernel/contract/index.js'
import { querySettings } from '../../domains/query/query-settings.js'
import type { UploadedFile } from '../../domains/query/uploads.js'
import { countTokens } from '../../domains/query/knowledge/tokens.js'
import { SESSION_ID_MAX_LENGTH } from '../../schemas/query-request.schema.js'
import { configSchema } from './schema.js'
import { checkUpload, type CheckedFile } from './upload-check.js'
import { transcribe } from './transcribe.js'

const bad = (message: string) => new GatewayError(400, message, { code: 'invalid_request' })

function single(fields: Record<string, string | string[]>, name: string): string | undefined {
  const v = fields[name]
  if (Array.isArray(v)) throw bad(`${name} must be sent once`)
  return v
}

/** A session id the client chose: printable, bounded; it is only ever a bound parameter. */
/** The query's own session_id rule (schemas/query-request.schema.ts), without control characters. */
const SESSION_ID = new RegExp(`^[^\\p{Cc}]{1,${SESSION_ID_MAX_LENGTH}}$`, 'u')

export default definePlugin({
  name: 'query-upload',
  config: configSchema,
  requires: ['queryAuth', 'upload'],
  setup(config, kernel) {
    const settings = querySettings(kernel.config.server.query)
    const route = config.transcription_route
    const model =
      config.transcription_model ??
      kernel.catalog.models().find((m) => m.model_type === 'audio_transcription' && m.enabled !== false)?.id

    return {
      async request(ex, next) {
        const { project, token } = ex.state.queryAuth
        const upload = ex.state.upload
        if (!upload.files)
          throw new GatewayError(500, 'internal error', {
            cause: new Error('query-upload needs multipart-upload with file_fields: [images, docs, audios]'),
          })
        // project_id is a form field, read after query-auth (project_id_later): its checks are made here.
        const asked = single(upload.fields, 'project_id')
        if (asked === '') throw bad('project_id must be a non-empty string')
        if (asked === undefined && token.kind === 'developer' && !ex.query.get('project_id'))
          throw bad('project_id is required with a developer token')
        if (asked !== undefined && asked !== project.id)
          throw new GatewayError(403, `this token is not valid for project ${asked}`)
        const sent = single(upload.fields, 'session_id')
        if (sent !== undefined && !SESSION_ID.test(sent))
          throw bad(`session_id must be 1 to ${SESSION_ID_MAX_LENGTH} characters, none of them control characters`)
        const sessionId = sent ?? crypto.randomUUID()

        const checked = checkUpload(upload.files, settings.uploads)
        if (checked.some((f) => f.kind === 'audio') && !model)
          throw new GatewayError(503, 'no transcription model is configured for audio uploads')

        // Images and documents first: a document that cannot be read fails the upload before any
        // audio is transcribed, so a refused upload is never billed for a transcription.
        const ready = new Map<CheckedFile, UploadedFile & { tokens?: number }>()
        const base = (f: CheckedFile) => ({
          name: f.name,
          kind: f.kind,
          contentType: f.contentType,
          bytes: f.data.length,
        })
        // The first refusal ends the reading of the other documents (their reader processes are freed).
        const reading = new AbortController()
        setMaxListeners(checked.length + 10, reading.signal) // one per document read at once
        const stop = () => reading.abort()
        ex.signal.addEventListener('abort', stop, { once: true })
        await Promise.all(
          checked.map(async (f) => {
            if (f.kind === 'image')
              ready.set(f, { ...base(f), dataUrl: `data:${f.contentType};base64,${f.data.toString('base64')}` })
            else if (f.kind === 'doc') {
              // Read in a reader process (the knowledge base's pool), its tokens counted there too.
              const doc = { bytes: f.data, contentType: f.contentType, fileName: `document.${f.format!}` }
              const read = kernel.domains.query.knowledge.readers.text(doc, reading.signal)
              const { text, tokens } = await named(f.name, read).catch((err: unknown) => {
                stop()
                throw err
              })
              ready.set(f, { ...base(f), text, tokens })
            }
          }),
        ).finally(() => ex.signal.removeEventListener('abort', stop))
        await Promise.all(
          checked.map(async (f) => {
            if (f.kind !== 'audio') return
            const text = await transcribe(kernel, ex, { route, model: model! }, f)
            ready.set(f, { ...base(f), text, tokens: countTokens(text) })
          }),
        )
        const files = checked.map((f) => ready.get(f)!)
        const queryId = crypto.randomUUID()
        const expiresAt = kernel.now() + settings.uploads.ttlMs
        await kernel.domains.query.uploads.put(
          project.id,
          sessionId,
          queryId,
          files.map(({ tokens: _, ...f }) => f),
          expiresAt,
        )
        ex.reply = reply.json({
          query_id: queryId,
          session_id: sessionId,
          files: files.map((f) => ({
            name: f.name,
            kind: f.kind,
            content_type: f.contentType,
            bytes: f.bytes,
            ...(f.tokens === undefined ? {} : { tokens: f.tokens }),
          })),
          expires_at: Math.floor(expiresAt / 1000),
        })
        await next()
      },
    }
  },
})

/** A reader's refusal (an unreadable PDF …) says which file it was about. */
async function named<T>(name: string, work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (err) {
    if (err instanceof GatewayError && err.status < 500)
      throw new GatewayError(err.status, `file ${name}: ${err.message}`, { code: 'invalid_request' })
    throw err
  }
}
