/**
 * Images of a verdicts request: each a base64 data URL or a public https:// URL (the rule of
 * `protocols/openai/image-url.ts`, the same as chat's), and the byte size they weigh. The
 * gateway never fetches an image itself (the model server does), but it refuses hosts that are
 * plainly not public, so a request cannot point the model server at the operator's own network.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import { IMAGE_URL_RULE, readImageUrl } from '../../protocols/openai/image-url.js'

/** Checks one image and returns the bytes of image data it carries (0 for a URL the server fetches). */
export function imageBytes(url: string, index: number): number {
  const image = readImageUrl(url)
  if (!image) throw new GatewayError(400, `images[${index}] must be ${IMAGE_URL_RULE}`, { code: 'invalid_request' })
  return image.kind === 'data' ? image.bytes : 0
}
