/**
 * The in-context files of a query (spec 001 rule 7): the files a chat upload stored, named by
 * the query's `chat_upload` lists and found by its `query_id` and `session_id`. Images become
 * image parts of the user message; documents (their extracted text) and audio (its transcript)
 * become one text, each file under a header line naming it: that text is what counts as
 * `incontext_text` in the usage metric.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import type { ChatUploads, UploadKind } from '../../domains/query/uploads.js'

export interface InContextFiles {
  imageParts: { type: 'image_url'; image_url: { url: string } }[]
  text: string
  /** Each file named, with the text it put in the prompt (documents and transcripts). */
  files: { name: string; kind: UploadKind; text?: string }[]
}

const LISTS = [
  ['images', 'image'],
  ['docs', 'doc'],
  ['audios', 'audio'],
] as const

const LIST_OF: Readonly<Record<UploadKind, string>> = { image: 'images', doc: 'docs', audio: 'audios' }

const bad = (message: string) => new GatewayError(400, message, { code: 'invalid_request' })

/** The header line above a file's text in the prompt. */
export function fileHeader(kind: 'doc' | 'audio', name: string): string {
  return kind === 'doc' ? `--- document: ${name} ---` : `--- audio transcript: ${name} ---`
}

export async function inContextFiles(
  uploads: ChatUploads,
  o: {
    projectId: string
    sessionId?: string
    queryId?: string
    chatUpload?: { images?: string[]; docs?: string[]; audios?: string[] }
  },
): Promise<InContextFiles> {
  const empty: InContextFiles = { imageParts: [], text: '', files: [] }
  if (!o.chatUpload) return empty
  const missingIds = [!o.queryId && 'query_id', !o.sessionId && 'session_id'].filter(
    (x): x is string => typeof x === 'string',
  )
  if (missingIds.length > 0)
    throw bad(`chat_upload needs ${missingIds.join(' and ')} (both are returned by the chat upload)`)
  const asked: { name: string; kind: UploadKind }[] = []
  for (const [list, kind] of LISTS) for (const name of o.chatUpload[list] ?? []) asked.push({ name, kind })
  if (asked.length === 0) return empty
  const { files, missing } = await uploads.get(o.projectId, o.sessionId!, o.queryId!, [
    ...new Set(asked.map((a) => a.name)),
  ])
  if (missing.length > 0) {
    throw new GatewayError(
      404,
      `chat upload ${o.queryId} of session ${o.sessionId} has no file ${missing.join(', ')} (never uploaded, or expired)`,
    )
  }
  const byName = new Map(files.map((f) => [f.name, f]))
  const wrong = asked.filter((a) => byName.get(a.name)!.kind !== a.kind)
  if (wrong.length > 0) {
    throw bad(
      `chat_upload lists ${wrong.map((a) => `${a.name} under ${LIST_OF[a.kind]}, but it is ${article(byName.get(a.name)!.kind)} (list it under ${LIST_OF[byName.get(a.name)!.kind]})`).join('; ')}`,
    )
  }
  const out: InContextFiles = { imageParts: [], text: '', files: [] }
  const texts: string[] = []
  const seen = new Set<string>()
  for (const a of asked) {
    if (seen.has(a.name)) continue
    seen.add(a.name)
    const f = byName.get(a.name)!
    out.files.push(
      f.kind === 'image' ? { name: f.name, kind: f.kind } : { name: f.name, kind: f.kind, text: f.text ?? '' },
    )
    if (f.kind === 'image') out.imageParts.push({ type: 'image_url', image_url: { url: f.dataUrl ?? '' } })
    else texts.push(`${fileHeader(f.kind, f.name)}\n${f.text ?? ''}`)
  }
  out.text = texts.join('\n\n')
  return out
}

function article(kind: UploadKind): string {
  return kind === 'image' ? 'an image' : kind === 'doc' ? 'a document' : 'an audio file'
}
