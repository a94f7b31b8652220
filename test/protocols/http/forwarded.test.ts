/**
 * The client's address behind trusted proxies (protocols/http/forwarded.ts): the socket's own
 * address unless it is a trusted proxy; then X-Forwarded-For from the right, past trusted
 * proxies; a spoofed header from an untrusted peer is ignored; dual-stack IPv4 in its own form;
 * `trusted_proxies` entries that are not addresses or CIDR ranges refused.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { clientAddress, trustedProxies } from '../../../protocols/http/forwarded.js'

const test = suite('protocols/http: client address behind trusted proxies')
const forwarded = (xff?: string) => ({ header: (name: string) => (name === 'x-forwarded-for' ? xff : undefined) })

test('no trusted proxies: the socket address, whatever X-Forwarded-For says', () => {
  assert.is(trustedProxies([]), undefined)
  assert.is(clientAddress('::ffff:127.0.0.1', undefined, forwarded('203.0.113.7')), '127.0.0.1')
  assert.is(clientAddress('2001:db8::1', undefined, forwarded()), '2001:db8::1')
})

test('from a trusted proxy: the rightmost untrusted hop; an untrusted peer is not believed', () => {
  const proxies = trustedProxies(['127.0.0.1', '10.0.0.0/8', 'fd00::/8'])
  assert.is(clientAddress('127.0.0.1', proxies, forwarded('203.0.113.7')), '203.0.113.7')
  assert.is(clientAddress('::ffff:10.1.2.3', proxies, forwarded('198.51.100.1, 203.0.113.7, 10.0.0.2')), '203.0.113.7')
  assert.is(clientAddress('fd00::5', proxies, forwarded('2001:db8::9')), '2001:db8::9')
  assert.is(clientAddress('127.0.0.1', proxies, forwarded()), '127.0.0.1', 'no header: the proxy itself')
  assert.is(
    clientAddress('127.0.0.1', proxies, forwarded('10.0.0.9, 10.0.0.2')),
    '10.0.0.9',
    'all trusted: the leftmost',
  )
  assert.is(clientAddress('192.0.2.50', proxies, forwarded('203.0.113.7')), '192.0.2.50', 'a spoofing client')
  assert.is(clientAddress('127.0.0.1', proxies, forwarded('unknown, 10.0.0.2')), '10.0.0.2', 'garbage ends the walk')
})

test('trusted_proxies: addresses and CIDR ranges, anything else refused with the entry named', () => {
  assert.ok(trustedProxies(['192.168.0.0/16', '::1', '2001:db8::/32', '0.0.0.0/0']))
  for (const bad of ['10.0.0.0/33', 'fd00::/129', '10.0.0.0/', '10.0.0/8', 'localhost', '10.0.0.0/8/1', '10.0.0.0/x'])
    assert.throws(
      () => trustedProxies([bad]),
      (e: Error) => e.message.includes(JSON.stringify(bad)),
      bad,
    )
})

test.run()
