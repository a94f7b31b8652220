/**
 * The client's address behind reverse proxies. The socket's peer is the client, unless it is
 * a proxy the operator trusts (server.yaml `trusted_proxies`): then X-Forwarded-For is read
 * from the right, past the trusted proxies, to the first address that is not one (what nginx's
 * `real_ip_recursive` and Express's `trust proxy` do). What an untrusted peer writes in
 * X-Forwarded-For is never believed.
 */
import net from 'node:net'

export type TrustedProxies = net.BlockList

/** The trusted proxies' ranges (addresses or CIDR ranges); throws on an entry that is neither. */
export function trustedProxies(ranges: readonly string[]): TrustedProxies | undefined {
  if (ranges.length === 0) return undefined
  const list = new net.BlockList()
  for (const range of ranges) {
    const [address = '', prefix, extra] = range.split('/')
    const family = net.isIP(address)
    const max = family === 6 ? 128 : 32
    const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : -1
    if (family === 0 || extra !== undefined || bits < 0 || bits > max)
      throw new Error(`trusted_proxies: ${JSON.stringify(range)} is not an IP address or a CIDR range`)
    list.addSubnet(address, bits, family === 6 ? 'ipv6' : 'ipv4')
  }
  return list
}

/** An IPv4 address the way a dual-stack socket shows it (`::ffff:10.0.0.1`), in its own form. */
function plain(address: string): string {
  return address.startsWith('::ffff:') && net.isIPv4(address.slice(7)) ? address.slice(7) : address
}

function isTrusted(proxies: TrustedProxies, address: string): boolean {
  const family = net.isIP(address)
  return family !== 0 && proxies.check(address, family === 6 ? 'ipv6' : 'ipv4')
}

/**
 * The client's address of a request that came from `peer`: the peer itself, or, when the peer
 * is a trusted proxy, the rightmost address of X-Forwarded-For that is not (the leftmost when
 * all are). A hop that is not an address (`unknown`, garbage) ends the walk at the last known one.
 */
export function clientAddress(
  peer: string,
  proxies: TrustedProxies | undefined,
  request: { header(name: string): string | undefined },
): string {
  let client = plain(peer)
  if (!proxies || !isTrusted(proxies, client)) return client
  const hops = request.header('x-forwarded-for')?.split(',') ?? []
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = plain(hops[i]!.trim())
    if (net.isIP(hop) === 0) return client
    client = hop
    if (!isTrusted(proxies, hop)) return hop
  }
  return client
}
