/** models.yaml: a backend's replicas and routing settings are checked at load, with errors that name them. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { configDirWith, makeKernel } from '../../bin/testing/harness.js'
import { modelsWith } from '../support/deployment-files.js'

const test = suite('catalog: backend replicas in models.yaml')
const load = (backend: object) => () =>
  makeKernel({
    configDir: configDirWith({
      'models.yaml': modelsWith({
        backends: { pool: backend },
        models: [{ id: 'pooled', model_type: 'chat', backend: 'pool', served_name: 'sim-pooled' }],
      }),
    }),
  })

test('replicas that are not http(s) URLs, an unknown policy, neither url nor replicas: refused at load', () => {
  assert.throws(
    load({ replicas: ['10.0.0.5:8000'] }),
    (e: Error) => /replicas/.test(e.message) && /pattern/.test(e.message),
  )
  assert.throws(load({ replicas: ['http://10.0.0.5:8000'], routing: { policy: 'random' } }), (e: Error) =>
    /policy/.test(e.message),
  )
  assert.throws(load({ capacity: 4 }), (e: Error) => /url|replicas/.test(e.message))
  assert.throws(load({ replicas: [] }), (e: Error) => /replicas/.test(e.message))
})

test('replicas alone, or beside url, load; the first names the backend', () => {
  const alone = load({
    replicas: ['http://10.0.0.5:8000', 'http://10.0.0.6:8000'],
    routing: { policy: 'least_loaded' },
  })()
  assert.is(alone.catalog.backend('pool')?.baseUrl, 'http://10.0.0.5:8000')
  assert.is(alone.catalog.backend('pool')?.routing?.policy, 'least_loaded')
  const beside = load({ url: 'http://10.0.0.4:8000/', replicas: ['http://10.0.0.5:8000'] })()
  assert.is(beside.catalog.backend('pool')?.baseUrl, 'http://10.0.0.4:8000')
  assert.is(beside.catalog.backend('pool')?.routing?.policy, 'prefix_aware', 'prefix_aware by default')
})

test.run()
