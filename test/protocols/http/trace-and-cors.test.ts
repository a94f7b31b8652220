/**
 * The two pure rules behind the trace context and CORS: which `traceparent` headers are valid
 * (W3C Trace Context, level 1: version, lengths, lower-case hex, no all-zero ids, no extra
 * fields in version 00, version ff invalid) and which origins a `cors:` entry allows (exact,
 * any port, any subdomain, `*`), with the look-alikes an attacker would try.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { parseTraceparent } from '../../../protocols/http/trace-context.js'
import { corsPolicy } from '../../../protocols/http/cors.js'

const test = suite('protocols/http: trace context and CORS origins')
const T = '4bf92f3577b34da6a3ce929d0e0e4736'
const S = '00f067aa0ba902b7'

test('traceparent: valid ones are read, every invalid form refused', () => {
  assert.equal(parseTraceparent(`00-${T}-${S}-01`), { traceId: T, parentId: S, flags: '01' })
  assert.equal(parseTraceparent(`00-${T}-${S}-00`)?.flags, '00')
  assert.ok(parseTraceparent(`01-${T}-${S}-01-future-field`), 'a future version may append fields')
  for (const bad of [
    undefined,
    '',
    `00-${T.toUpperCase()}-${S}-01`,
    `00-${'0'.repeat(32)}-${S}-01`,
    `00-${T}-${'0'.repeat(16)}-01`,
    `ff-${T}-${S}-01`,
    `00-${T}-${S}-01-extra`,
    `00-${T.slice(1)}-${S}-01`,
    `00-${T}-${S}-1`,
    `00_${T}_${S}_01`,
    `00-${T}-${S}-01`.padEnd(600, 'x'),
  ]) {
    assert.is(parseTraceparent(bad), undefined, String(bad))
  }
})

test('cors origins: exact, port wildcard, subdomain wildcard; look-alikes refused', () => {
  const policy = corsPolicy({
    origins: ['http://localhost:*', 'https://app.example.com', 'https://*.corp.example'],
    credentials: false,
    max_age: 600,
  })
  for (const ok of [
    'http://localhost',
    'http://localhost:5173',
    'http://LOCALHOST:3000',
    'https://app.example.com',
    'https://a.corp.example',
    'https://a.b.corp.example',
  ]) {
    assert.ok(policy.allows(ok), ok)
  }
  for (const no of [
    'https://localhost:5173',
    'http://localhost:5173.evil.io',
    'http://localhost.evil.io',
    'http://evil.io/http://localhost',
    'https://app.example.com:8443',
    'https://app.example.com.evil.io',
    'https://corp.example',
    'https://a.corp.example.evil.io',
    'https://xapp.example.com',
    'null',
  ]) {
    assert.not.ok(policy.allows(no), no)
  }
  assert.not.ok(policy.anyOrigin)
  const any = corsPolicy({ origins: ['*'], credentials: false, max_age: 600 })
  assert.ok(any.allows('https://anything.example'))
  assert.ok(any.anyOrigin)
})

test.run()
