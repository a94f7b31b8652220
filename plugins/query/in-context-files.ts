// PLACEHOLDER (being built on branch query-history).
import { GatewayError } from '../../kernel/errors.js'
import type { ChatUploads } from '../../kernel/services/query/uploads.js'

export async function inContextFiles(
  _uploads: ChatUploads,
  o: { projectId: string; sessionId?: string; queryId?: string; chatUpload?: { images?: string[]; docs?: string[]; audios?: string[] } },
): Promise<{ imageParts: { type: 'image_url'; image_url: { url: string } }[]; text: string; files: { name: string; kind: 'image' | 'doc' | 'audio' }[] }> {
  if (o.chatUpload) throw new GatewayError(501, 'chat_upload is not available yet')
  return { imageParts: [], text: '', files: [] }
}
