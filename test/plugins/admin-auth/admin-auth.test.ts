import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import adminAuth from '../../../plugins/admin-auth/index.js'
import { makeKernel, runPlugin, TEST_KEY } from '../../../bin/testing/harness.js'
import { formatHash, hashSecret } from '../../../protocols/credentials/secrets.js'

const test = suite('plugin admin-auth')
const kernel = makeKernel({ adminKeyHash: formatHash(hashSecret('sk-admin')) })

test('the admin key passes', async () => {
  const run = await runPlugin(adminAuth, {}, { kernel, headers: { authorization: 'Bearer sk-admin' } })
  assert.ok(run.nextCalled)
  assert.equal(run.ex.state.admin, { authenticated: true })
})

test('no key: 401 missing bearer token', async () => {
  const run = await runPlugin(adminAuth, {}, { kernel })
  assert.equal([run.error?.status, run.error?.message], [401, 'missing bearer token'])
})

test('a tenant API key is not the admin key: 401 invalid admin key', async () => {
  const run = await runPlugin(adminAuth, {}, { kernel, headers: { authorization: `Bearer ${TEST_KEY}` } })
  assert.equal([run.error?.status, run.error?.message], [401, 'invalid admin key'])
  assert.not.ok(run.nextCalled)
})

test('no admin key configured: 403, whatever is sent', async () => {
  const closed = makeKernel()
  const run = await runPlugin(adminAuth, {}, { kernel: closed, headers: { authorization: 'Bearer sk-admin' } })
  assert.equal([run.error?.status, run.error?.message], [403, 'admin api is not configured'])
})

test('SLUICE_ADMIN_KEY sets the admin key too', async () => {
  const fromEnv = makeKernel({ env: { SLUICE_ADMIN_KEY: 'sk-env-admin', SLUICE_DEMO_KEY: TEST_KEY } })
  assert.ok(
    (await runPlugin(adminAuth, {}, { kernel: fromEnv, headers: { authorization: 'Bearer sk-env-admin' } })).nextCalled,
  )
})

test.run()
