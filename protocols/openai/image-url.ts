/**
 * What an `image_url` may be, by the spec: "a base64 data URL or a public https:// URL". One
 * rule for every door that takes images (chat content parts, verdict `images`).
 *
 * The gateway itself fetches no image: a model server downloads an https URL. So the rule is
 * read from the URL alone, without DNS: a scheme other than `https:`, a host name that names
 * the local machine or a private network (`localhost`, `*.internal` such as
 * `metadata.google.internal`, single-label names), and an IP literal outside the public
 * unicast space (loopback, private, link-local with the cloud metadata address, CGNAT,
 * multicast, reserved, and IPv6 forms that carry such an IPv4 address) are refused.
 *
 * Hosts are read after the WHATWG URL parser has normalized them, so `https://2130706433/`,
 * `https://0x7f.1/` and `https://%31%32%37.0.0.1/` are all 127.0.0.1. A URL that other
 * parsers (the model server's) could read with another host is refused outright: backslashes,
 * whitespace or control characters, user info, anything but a literal `https://` prefix.
 */
import { BlockList, isIP } from 'node:net'

/** The spec's wording of the rule, for error messages. */
export const IMAGE_URL_RULE = 'a base64 data URL or a public https:// URL'

/** An accepted image URL: inline data (with its decoded size) or a public https URL. */
export type ImageUrl =
  | { readonly kind: 'data'; readonly bytes: number }
  | { readonly kind: 'https'; readonly host: string }

const DATA_URL = /^data:image\/[A-Za-z0-9.+-]+(?:;[A-Za-z0-9=.+-]+)*;base64,/

/** IPv4 and IPv6 ranges that are not public unicast (IANA special-purpose registries). */
const NON_PUBLIC = new BlockList()
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT (Alibaba's metadata service sits here)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, with the cloud metadata address 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and broadcast
] as const)
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4')
for (const [net, prefix] of [
  ['::', 96], // unspecified, loopback and IPv4-compatible addresses
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (AWS's IPv6 metadata address fd00:ec2::254 is here)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  NON_PUBLIC.addSubnet(net, prefix, 'ipv6')

/** Host names that name this machine, a private network or a metadata service. */
const NON_PUBLIC_NAMES = ['localhost', 'local', 'internal', 'home.arpa', 'lan', 'metadata.goog']

/** The 32 bits of an IPv6 address (16 bytes) from `from`, as a dotted IPv4 address. */
function embeddedIpv4(bytes: readonly number[], from: number): string {
  return bytes.slice(from, from + 4).join('.')
}

/** The 16 bytes of an IPv6 address in any textual form `isIP` accepts. */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase()
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined]
  const headGroups = head === '' ? [] : head.split(':')
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':')
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
  return groups.flatMap((g) => {
    const n = parseInt(g, 16)
    return [n >> 8, n & 0xff]
  })
}

/**
 * Whether an IP address (no brackets) is outside the public unicast space. IPv6 addresses that
 * carry an IPv4 address (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are
 * judged by that IPv4 address. Anything that is not an IP address is not judged: false. Also
 * what a fetcher would check each resolved address with, were the gateway ever to fetch a
 * client's URL itself.
 */
export function isNonPublicAddress(ip: string): boolean {
  const address = ip.replace(/%.*$/, '') // a zone (fe80::1%eth0) does not change the range
  const family = isIP(address)
  if (family === 4) return NON_PUBLIC.check(address, 'ipv4')
  if (family !== 6) return false
  if (NON_PUBLIC.check(address, 'ipv6')) return true
  const bytes = ipv6Bytes(address)
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0)
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return NON_PUBLIC.check(embeddedIpv4(bytes, 12), 'ipv4')
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12))
    return NON_PUBLIC.check(embeddedIpv4(bytes, 12), 'ipv4')
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return NON_PUBLIC.check(embeddedIpv4(bytes, 2), 'ipv4')
  return false
}

/** Whether a host name (not an IP literal) names this machine, a private network or a metadata service. */
function isNonPublicName(name: string): boolean {
  if (!name.includes('.')) return true // single-label names resolve through the local search domains
  return NON_PUBLIC_NAMES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`))
}

/** Decoded size of a base64 data URL's payload, without decoding it. */
export function dataUrlBytes(url: string): number {
  const comma = url.indexOf(',')
  const payload = url.length - comma - 1
  let padding = 0
  if (url.endsWith('==')) padding = 2
  else if (url.endsWith('=')) padding = 1
  return Math.max(0, Math.floor((payload * 3) / 4) - padding)
}

/** Characters no parser should have to guess about: `\`, whitespace and control characters. */
const AMBIGUOUS = /[\\\u0000-\u0020\u007f]/

/** Reads an image URL by the rule: what it is when accepted, undefined when refused. */
export function readImageUrl(url: string): ImageUrl | undefined {
  if (DATA_URL.test(url)) return { kind: 'data', bytes: dataUrlBytes(url) }
  if (!/^https:\/\//i.test(url) || AMBIGUOUS.test(url)) return undefined
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  if (parsed.protocol !== 'https:' || parsed.username !== '' || parsed.password !== '') return undefined
  const host = parsed.hostname.toLowerCase().replace(/\.+$/, '')
  const literal = host.startsWith('[') ? host.slice(1, -1) : host
  if (host === '' || (isIP(literal) ? isNonPublicAddress(literal) : isNonPublicName(host))) return undefined
  return { kind: 'https', host }
}

/** One `image_url` part of chat messages, with where it is in the body. */
export interface ImagePart {
  /** The field path, e.g. `messages[0].content[1].image_url.url`. */
  readonly path: string
  /** The URL as sent; not a string when the body is malformed. */
  readonly url: unknown
}

/** Every `image_url` part of chat messages, in order. */
export function imageParts(messages: unknown): ImagePart[] {
  const out: ImagePart[] = []
  if (!Array.isArray(messages)) return out
  messages.forEach((message: { content?: unknown } | null, i) => {
    const content = message?.content
    if (!Array.isArray(content)) return
    content.forEach((part: { type?: unknown; image_url?: { url?: unknown } | null } | null, j) => {
      if (part?.type === 'image_url')
        out.push({ path: `messages[${i}].content[${j}].image_url.url`, url: part.image_url?.url })
    })
  })
  return out
}

/** Whether an image part breaks the rule (its URL is not a data URL or a public https URL). */
export function breaksImageRule(part: ImagePart): boolean {
  return typeof part.url !== 'string' || readImageUrl(part.url) === undefined
}
