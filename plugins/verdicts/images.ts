/**
 * Images of a verdicts request: each a base64 data URL or a public https:// URL, and the byte
 * size they weigh. The gateway never fetches an image itself (the model server does), but it
 * refuses hosts that are plainly not public, so a request cannot point the model server at
 * the operator's own network.
 */
import { GatewayError } from '../../kernel/errors.js'

const DATA_URL = /^data:image\/[A-Za-z0-9.+-]+(?:;[A-Za-z0-9=.+-]+)*;base64,/

/** Decoded size of a base64 data URL's payload, without decoding it. */
export function dataUrlBytes(url: string): number {
  const comma = url.indexOf(',')
  const payload = url.length - comma - 1
  let padding = 0
  if (url.endsWith('==')) padding = 2
  else if (url.endsWith('=')) padding = 1
  return Math.max(0, Math.floor((payload * 3) / 4) - padding)
}

function isPrivateIpv4(host: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host)
  if (!m) return false
  const [a, b] = [Number(m[1]), Number(m[2])]
  return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)
}

function isPrivateIpv6(host: string): boolean {
  if (!host.startsWith('[')) return false
  const h = host.slice(1, -1).toLowerCase()
  return h === '::' || h === '::1' || /^f[cd]/.test(h) || /^fe[89ab]/.test(h) || h.startsWith('::ffff:')
}

/** Whether an https URL names a host that could be public (no DNS lookup: literals and names only). */
function isPublicHttps(url: string): boolean {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (parsed.protocol !== 'https:') return false
  const host = parsed.hostname.toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) return false
  return !isPrivateIpv4(host) && !isPrivateIpv6(host)
}

/** Checks one image and returns the bytes of image data it carries (0 for a URL the server fetches). */
export function imageBytes(url: string, index: number): number {
  if (DATA_URL.test(url)) return dataUrlBytes(url)
  if (isPublicHttps(url)) return 0
  throw new GatewayError(400, `images[${index}] must be a base64 data URL or a public https:// URL`, { code: 'invalid_request' })
}
