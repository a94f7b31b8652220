/**
 * The `image` of a vision request as one chat `image_url`: a data URL as sent, bare base64 made
 * into a data URL with `image_content_type`, or a public https:// URL, by the gateway's one
 * image-URL rule (protocols/openai/image-url.ts: the gateway fetches nothing itself, and a URL
 * naming loopback, private or link-local addresses is refused). `http://` is refused too.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import { dataUrlBytes, readImageUrl } from '../../protocols/openai/image-url.js'

const RULE =
  'image must be a data URL (data:image/…;base64,…), base64 data with image_content_type, or a public https:// URL'
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/

const bad = (message: string) => new GatewayError(400, message, { code: 'invalid_request' })

export function imageUrlOf(image: string, contentType: string | undefined, maxBytes: number): string {
  let url = image
  if (!/^(data|https?):/i.test(image)) {
    if (contentType === undefined)
      throw bad('image_content_type is required with bare base64 image data (e.g. image/png)')
    const data = image.replace(/\s+/g, '')
    if (!BASE64.test(data) || data.length % 4 !== 0) throw bad('image is neither a URL nor valid base64 data')
    url = `data:${contentType};base64,${data}`
  } else if (contentType !== undefined) {
    throw bad('image_content_type goes only with bare base64 image data')
  }
  const read = readImageUrl(url)
  if (!read) throw bad(RULE)
  if (read.kind === 'data' && dataUrlBytes(url) > maxBytes)
    throw new GatewayError(413, `image data is too large: ${dataUrlBytes(url)} bytes (maximum ${maxBytes})`, {
      code: 'body_too_large',
    })
  return url
}
