import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  breaksImageRule,
  dataUrlBytes,
  imageParts,
  isNonPublicAddress,
  readImageUrl,
} from '../../protocols/openai/image-url.js'

const test = suite('protocols/openai: image URLs')

const png =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

test('base64 image data URLs pass, with their decoded size', () => {
  assert.equal(readImageUrl('data:image/png;base64,AAAA'), { kind: 'data', bytes: 3 })
  assert.equal(readImageUrl('data:image/svg+xml;charset=utf-8;base64,aGk='), { kind: 'data', bytes: 2 })
  assert.equal(readImageUrl(png), { kind: 'data', bytes: Buffer.from(png.split(',')[1]!, 'base64').length })
  assert.is(dataUrlBytes(`data:image/png;base64,${Buffer.alloc(1000).toString('base64')}`), 1000)
})

test('other data URLs are refused: not an image, not base64', () => {
  for (const url of [
    'data:text/plain;base64,aGk=',
    'data:text/html,<script>1</script>',
    'data:image/png,rawbytes',
    'data:,x',
  ])
    assert.is(readImageUrl(url), undefined, url)
})

test('public https URLs pass', () => {
  assert.equal(readImageUrl('https://example.com/cat.png'), { kind: 'https', host: 'example.com' })
  assert.equal(readImageUrl('HTTPS://Images.Example.COM:8443/a/b.png?x=1#y'), {
    kind: 'https',
    host: 'images.example.com',
  })
  assert.equal(readImageUrl('https://93.184.215.14/cat.png'), { kind: 'https', host: '93.184.215.14' })
  assert.equal(readImageUrl('https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/cat.png'), {
    kind: 'https',
    host: '[2606:2800:21f:cb07:6820:80da:af6b:8b2c]',
  })
  assert.ok(readImageUrl('https://[::ffff:8.8.8.8]/a.png'), 'a mapped public IPv4 address is public')
  assert.ok(readImageUrl('https://100.128.0.1/a.png'), 'just past CGNAT')
  assert.ok(readImageUrl('https://172.32.0.1/a.png'), 'just past 172.16/12')
})

test('every scheme but https is refused', () => {
  for (const url of [
    'http://example.com/a.png',
    'file:///etc/passwd',
    'ftp://example.com/a.png',
    'gopher://example.com/',
    'javascript:alert(1)',
    'ws://example.com/',
    'blob:https://example.com/x',
    '//example.com/a.png',
    'example.com/a.png',
    '',
    'https://',
  ]) {
    assert.is(readImageUrl(url), undefined, url)
  }
})

test('IPv4 literals outside public unicast are refused', () => {
  const hosts = [
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.0.1',
    '0.0.0.0',
    '0.1.2.3',
    '100.64.0.1',
    '100.100.100.200',
    '100.127.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
  ]
  for (const host of hosts) assert.is(readImageUrl(`https://${host}/a.png`), undefined, host)
})

test('IPv4 in the encodings the URL parser normalizes', () => {
  for (const host of [
    '2130706433',
    '0x7f.1',
    '0x7f000001',
    '127.1',
    '0177.0.0.1',
    '017700000001',
    '127.0.0.1.',
    '%31%32%37.0.0.1',
    '169.254.43518',
    '0xa9fea9fe',
    '3232235777',
  ]) {
    assert.is(readImageUrl(`https://${host}/a.png`), undefined, host)
  }
})

test('IPv6 literals: loopback, unspecified, unique local, link-local, and IPv4 carried inside', () => {
  const hosts = [
    '::1',
    '::',
    '0:0:0:0:0:0:0:1',
    'fc00::1',
    'fd00:ec2::254',
    'fe80::1',
    'febf::1',
    'fec0::1',
    'ff02::1',
    '100::1',
    '2001:db8::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::ffff:10.0.0.1',
    '::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::1',
    '2002:7f00:1::1',
    '2002:c0a8:101::',
  ]
  for (const host of hosts) assert.is(readImageUrl(`https://[${host}]/a.png`), undefined, host)
})

test('host names of this machine, private networks and metadata services are refused', () => {
  const hosts = [
    'localhost',
    'LOCALHOST',
    'localhost.',
    'a.localhost',
    'printer.local',
    'metadata.google.internal',
    'metadata.google.internal.',
    'db.corp.internal',
    'nas.home.arpa',
    'router.lan',
    'metadata.goog',
    'metadata',
    'intranet',
    'ⓛⓞⓒⓐⓛⓗⓞⓢⓣ',
  ]
  for (const host of hosts) assert.is(readImageUrl(`https://${host}/a.png`), undefined, host)
})

test('URLs another parser could read with another host are refused', () => {
  for (const url of [
    'https://example.com\\@127.0.0.1/a.png',
    'https://user:pass@example.com/a.png',
    'https://example.com@127.0.0.1/a.png',
    'https://127.0.0.1\t.example.com/a.png',
    'https://example.com /a.png',
    ' https://example.com/a.png',
    'https:/example.com/a.png',
    'https:example.com/a.png',
    'https://exa\nmple.com/a.png',
  ]) {
    assert.is(readImageUrl(url), undefined, JSON.stringify(url))
  }
})

test('isNonPublicAddress judges resolved addresses, and nothing that is not an address', () => {
  for (const ip of [
    '127.0.0.1',
    '10.1.2.3',
    '169.254.169.254',
    '::1',
    'fe80::1%eth0',
    '::ffff:192.168.0.1',
    'fd00:ec2::254',
  ])
    assert.ok(isNonPublicAddress(ip), ip)
  for (const ip of ['8.8.8.8', '2001:4860:4860::8888', '::ffff:8.8.8.8', 'localhost', 'example.com', ''])
    assert.not.ok(isNonPublicAddress(ip), ip)
})

test('imageParts walks chat messages, naming where each part is', () => {
  const messages = [
    { role: 'system', content: 'plain text' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'x' },
        { type: 'image_url', image_url: { url: png } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        { type: 'image_url', image_url: { url: 'http://127.0.0.1/x.png' } },
      ],
    },
  ]
  assert.equal(
    imageParts(messages).map((p) => p.path),
    [
      'messages[1].content[1].image_url.url',
      'messages[2].content[0].image_url.url',
      'messages[2].content[1].image_url.url',
    ],
  )
  assert.equal(imageParts(messages).find(breaksImageRule), {
    path: 'messages[2].content[1].image_url.url',
    url: 'http://127.0.0.1/x.png',
  })
  assert.is(imageParts(messages.slice(0, 2)).find(breaksImageRule), undefined)
  assert.is(
    imageParts([{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }]).find(breaksImageRule)?.path,
    'messages[0].content[0].image_url.url',
    'a part without a URL string is refused',
  )
  for (const odd of [undefined, null, 'x', [null], [{ content: null }], [{ content: [null] }]])
    assert.is(imageParts(odd).find(breaksImageRule), undefined)
})

test.run()
