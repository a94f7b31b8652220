/**
 * An uploaded audio file's transcript, through the gateway's transcription route run
 * in-process (`audio-transcriptions-internal`: JSON with the file in base64) under the
 * project's principal, so it is queued, budgeted and recorded under the project's key like
 * any of its model calls.
 */
import { GatewayError, type Exchange, type Kernel } from '../../kernel/contract/index.js'

export interface TranscribeOptions {
  readonly route: string
  readonly model: string
}

export async function transcribe(
  kernel: Kernel,
  ex: Exchange,
  o: TranscribeOptions,
  file: { name: string; contentType: string; data: Buffer },
): Promise<string> {
  const body = {
    model: o.model,
    file_base64: file.data.toString('base64'),
    filename: file.name,
    content_type: file.contentType,
    response_format: 'json',
  }
  const { reply } = await kernel.call(o.route, body, { principal: ex.principal, signal: ex.signal, parentId: ex.id })
  const text = reply.kind === 'json' ? (reply.body as { text?: unknown } | null)?.text : undefined
  if (typeof text !== 'string')
    throw new GatewayError(502, `the transcription of ${file.name} came back without text`, { code: 'upstream_failed' })
  return text
}
