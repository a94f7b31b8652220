/**
 * A file sent inside JSON as base64 (the Query service's `audio_file`, the internal
 * transcription routes' `file_base64`): plain base64 or a `data:<type>;base64,` URL. Read
 * strictly — Buffer.from(text, 'base64') skips what it does not understand, so a truncated or
 * mangled upload would otherwise reach a model server as noise instead of getting a 400.
 */

export interface Base64Payload {
  readonly data: Buffer
  /** The base64 text alone, without a data URL's prefix (what a plain-base64 reader takes). */
  readonly base64: string
  /** The media type a data URL named. */
  readonly contentType?: string
}

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w-]+=[^;,]*)*;base64,/i
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** The bytes, or undefined when `text` is not base64 (or a base64 data URL). */
export function decodeBase64Payload(text: string): Base64Payload | undefined {
  const prefix = DATA_URL.exec(text)
  const body = prefix ? text.slice(prefix[0].length) : text
  if (body.length === 0 || body.length % 4 !== 0 || !BASE64.test(body)) return undefined
  const data = Buffer.from(body, 'base64')
  return prefix?.[1] ? { data, base64: body, contentType: prefix[1].toLowerCase() } : { data, base64: body }
}
