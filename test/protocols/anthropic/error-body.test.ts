import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { GatewayError } from '../../../kernel/contract/errors.js'
import { anthropicErrorStyle, anthropicErrorType } from '../../../protocols/anthropic/error-body.js'

const test = suite('protocols/anthropic: the error shape')

test('the body: type error, the status named as the Messages API names it, the message as meant for the client', () => {
  const rendered = anthropicErrorStyle()(new GatewayError(403, 'api key term budget exhausted'))
  assert.is(rendered.status, 403)
  assert.is(rendered.contentType, 'application/json')
  assert.equal(JSON.parse(rendered.body), {
    type: 'error',
    error: { type: 'permission_error', message: 'api key term budget exhausted' },
  })
})

test('every status the gateway raises has a type the SDK knows', () => {
  assert.equal([400, 401, 403, 404, 408, 410, 413, 429, 500, 502, 503, 504].map(anthropicErrorType), [
    'invalid_request_error',
    'authentication_error',
    'permission_error',
    'not_found_error',
    'timeout_error',
    'not_found_error',
    'request_too_large',
    'rate_limit_error',
    'api_error',
    'api_error',
    'overloaded_error',
    'timeout_error',
  ])
  assert.is(anthropicErrorType(418), 'invalid_request_error')
  assert.is(anthropicErrorType(599), 'api_error')
})

test.run()
