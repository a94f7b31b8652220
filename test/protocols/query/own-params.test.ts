/** The service-token rule: own parameters only with request_source "override_params". */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { checkOwnParams } from '../../../protocols/query/own-params.js'
import { GatewayError } from '../../../kernel/contract/errors.js'

const test = suite('protocols/query: own parameters of a service token')

function message(fn: () => void): string | undefined {
  try {
    fn()
    return undefined
  } catch (err) {
    assert.instance(err, GatewayError)
    assert.is((err as GatewayError).status, 400)
    return (err as GatewayError).message
  }
}

test('a developer token may send them', () =>
  assert.is(
    message(() => checkOwnParams('developer', { model_name: 'x' }, ['model_name'])),
    undefined,
  ))
test('a service token may not, without override_params', () =>
  assert.is(
    message(() => checkOwnParams('service', { model_name: 'x', model_params: {} }, ['model_name', 'model_params'])),
    'a service token sends its own parameters only with request_source "override_params" (sent: model_name, model_params)',
  ))
test('with override_params it may', () =>
  assert.is(
    message(() => checkOwnParams('service', { model_name: 'x', request_source: 'override_params' }, ['model_name'])),
    undefined,
  ))
test('a service token sending none of them needs nothing', () =>
  assert.is(
    message(() => checkOwnParams('service', { query: 'q' }, ['model_name'])),
    undefined,
  ))
test('request_source with another value is a 400 for either kind', () =>
  assert.is(
    message(() => checkOwnParams('developer', { request_source: 'other' }, [])),
    'request_source must be "override_params"',
  ))

test.run()
