import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { GatewayError } from '../../../kernel/contract/errors.js'
import {
  MessageError,
  askedFor,
  errorMessage,
  eventMessage,
  matches,
  readMessage,
  replyMessage,
  serializedEventMessage,
  upgradeRefusal,
} from '../../../protocols/websocket/envelope.js'

const test = suite('protocols/websocket: the envelope')
const json = (text: string) => () => JSON.parse(text) as unknown

test('readMessage takes the id out and leaves the body', () => {
  assert.equal(readMessage(json('{"id":"a1","action":"query","query":"hi"}')), {
    id: 'a1',
    body: { action: 'query', query: 'hi' },
  })
  assert.equal(readMessage(json('{"id":7,"x":1}')), { id: 7, body: { x: 1 } })
  assert.equal(readMessage(json('{"x":1}')), { id: null, body: { x: 1 } })
})

test('readMessage refuses what is not a JSON object with a usable id, as 400s', () => {
  for (const [text, message] of [
    ['{bad', /not valid JSON/],
    ['[1,2]', /a JSON object/],
    ['"text"', /a JSON object/],
    ['null', /a JSON object/],
    ['{"id":""}', /id must be/],
    ['{"id":{"a":1}}', /id must be/],
    [`{"id":"${'x'.repeat(129)}"}`, /id must be/],
  ] as const) {
    try {
      readMessage(json(text))
      assert.unreachable(text)
    } catch (err) {
      assert.instance(err, MessageError)
      assert.is((err as MessageError).error.status, 400)
      assert.match((err as MessageError).error.message, message)
    }
  }
  // The kernel's parser's own 400 (a body nested too deep) passes as it is.
  const deep = new GatewayError(400, 'request body is nested deeper than 128 levels')
  try {
    readMessage(() => {
      throw deep
    })
  } catch (err) {
    assert.is((err as MessageError).error, deep)
  }
})

test("matches: every field of the route must equal the message's", () => {
  assert.ok(matches(undefined, {}))
  assert.ok(matches({ action: 'query' }, { action: 'query', endpoint: 'query' }))
  assert.not.ok(matches({ action: 'query', endpoint: 'realtime' }, { action: 'query', endpoint: 'query' }))
  assert.not.ok(matches({ action: 'query' }, {}))
  assert.is(askedFor(['action', 'endpoint', 'action'], { action: 'x' }), 'action "x", endpoint null')
})

test('messages out carry the id first; a serialized event is spliced without a parse', () => {
  assert.is(eventMessage('a', { type: 'query.delta', delta: 'hi' }), '{"id":"a","type":"query.delta","delta":"hi"}')
  assert.equal(JSON.parse(serializedEventMessage(3, '{"type":"x","n":1}')), { id: 3, type: 'x', n: 1 })
  assert.equal(JSON.parse(serializedEventMessage(null, ' { } ')), { id: null })
  assert.equal(JSON.parse(replyMessage('r', 200, { ok: true })), {
    id: 'r',
    type: 'response',
    status: 200,
    body: { ok: true },
  })
})

test("an error message is the pipeline's error body with the id, the type and the request id", () => {
  const body = JSON.stringify({ error: { status: 400, type: 'invalid_request', message: 'bad' } })
  assert.equal(JSON.parse(errorMessage('e', body, 'req-1')), {
    id: 'e',
    type: 'error',
    error: { status: 400, type: 'invalid_request', message: 'bad' },
    request_id: 'req-1',
  })
  assert.equal(JSON.parse(errorMessage(null, 'not json')), { id: null, type: 'error', error: { message: 'not json' } })
})

test('an upgrade refusal is a whole HTTP/1.1 response that closes the connection', () => {
  const text = upgradeRefusal(401, 'Unauthorized', 'application/json', '{"é":1}', { 'www-authenticate': 'Bearer' })
  assert.match(text, /^HTTP\/1\.1 401 Unauthorized\r\n/)
  assert.match(text, /\r\ncontent-length: 8\r\n/)
  assert.match(text, /\r\nwww-authenticate: Bearer\r\nconnection: close\r\n\r\n\{"é":1\}$/)
})

test.run()
