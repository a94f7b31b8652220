/**
 * In-context files of the Query service (spec 001 rule 7): a chat upload stores images,
 * documents and audio for a project's session under a new `query_id`; a later query that sends
 * both identifiers with `chat_upload` gets them in context. Files are bounded, kept per project
 * and session, and expire.
 */
export type UploadKind = 'image' | 'doc' | 'audio'

export interface UploadedFile {
  readonly name: string
  readonly kind: UploadKind
  readonly contentType: string
  readonly bytes: number
  /** Images: the file as a `data:` URL, for an image part of a chat message. */
  readonly dataUrl?: string
  /** Documents: the text read from them; audio: its transcript. */
  readonly text?: string
}

export interface ChatUploads {
  /** Keeps the files of one upload until `expiresAt` (epoch ms). */
  put(
    projectId: string,
    sessionId: string,
    queryId: string,
    files: readonly UploadedFile[],
    expiresAt: number,
  ): Promise<void>
  /** The named files of one upload; names not found (or expired) are listed in `missing`. */
  get(
    projectId: string,
    sessionId: string,
    queryId: string,
    names: readonly string[],
  ): Promise<{ files: UploadedFile[]; missing: string[] }>
}
