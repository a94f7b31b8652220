import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { refusalResponse } from '../../protocols/http/refusal.js'

const test = suite('protocols: the refusal of a request Node cannot take')

const error = (code: string, rawPacket?: Buffer, bytesParsed?: number) =>
  Object.assign(new Error(code), { code, rawPacket, bytesParsed })

test('431, 400 and 408 with the documented body and the request id; nothing for a reset peer', () => {
  const text = refusalResponse(error('HPE_HEADER_OVERFLOW'), 'x-gateway-request-id', 'r-1')!.toString()
  assert.is(
    text,
    'HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: application/json\r\ncontent-length: 72\r\nx-gateway-request-id: r-1\r\nconnection: close\r\n\r\n{"error":{"message":"request headers too large","type":"gateway_error"}}',
  )
  assert.match(
    refusalResponse(error('HPE_INVALID_METHOD'), 'x', 'r')!.toString(),
    /^HTTP\/1\.1 400 Bad Request\r\n[^]*"malformed HTTP request"/,
  )
  assert.match(
    refusalResponse(error('ERR_HTTP_REQUEST_TIMEOUT'), 'x', 'r')!.toString(),
    /^HTTP\/1\.1 408 [^]*"request timed out"/,
  )
  assert.match(refusalResponse(error('constructor'), 'x', 'r')!.toString(), /^HTTP\/1\.1 400 /)
  assert.is(refusalResponse(error('ECONNRESET'), 'x', 'r'), undefined)
})

test('no body for a HEAD, found in a packet that also holds an earlier request', () => {
  const alone = Buffer.from(`HEAD /v1/models?${'q'.repeat(100)}`)
  assert.ok(
    refusalResponse(error('HPE_HEADER_OVERFLOW', alone, alone.length), 'x', 'r')!
      .toString()
      .endsWith('\r\n\r\n'),
  )
  const pipelined = Buffer.from(`GET / HTTP/1.1\r\nHost: x\r\n\r\nHEAD /${'y'.repeat(100)}`)
  assert.ok(
    refusalResponse(error('HPE_HEADER_OVERFLOW', pipelined, pipelined.length), 'x', 'r')!
      .toString()
      .endsWith('\r\n\r\n'),
  )
  const get = Buffer.from(`HEAD / HTTP/1.1\r\nHost: x\r\n\r\nGET /${'y'.repeat(100)}`)
  assert.ok(
    refusalResponse(error('HPE_HEADER_OVERFLOW', get, get.length), 'x', 'r')!
      .toString()
      .endsWith('}'),
  )
})

test.run()
