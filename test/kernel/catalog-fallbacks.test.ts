// biome-ignore-all lint/suspicious/noTemplateCurlyInString: models.yaml's own ${NAME} syntax, written as the operator writes it
/**
 * models.yaml `fallbacks` and `${NAME}` at load: a fallback that is not a model, the model
 * itself, of another type, an embedding model of other dimensions, or a cycle stops the load
 * with a message naming them; a backend's `${NAME}` is read from the environment given to the
 * load (the deployment keeps `${NAME}`, only the catalog's backend holds the value), and a
 * variable that is not set stops the load naming it, never showing a value.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import os from 'node:os'
import { configDirWith } from '../../bin/testing/harness.js'
import { modelsWith } from '../support/deployment-files.js'
import { loadDeployment } from '../../kernel/run/config.js'
import { createCatalog } from '../../kernel/services/catalog/catalog.js'
import { defaultPipelinesDir } from '../../kernel/contract/paths.js'

const test = suite('catalog: fallbacks and environment variables at load')
const chat = (id: string, extra: object = {}) => ({
  id,
  model_type: 'chat',
  backend: 'sim',
  served_name: 'sim-instruct-8b',
  reported_name: `${id}-r`,
  ...extra,
})
const load = (extra: Parameters<typeof modelsWith>[0], env: NodeJS.ProcessEnv = {}) => {
  const configDir = configDirWith({ 'models.yaml': modelsWith(extra) })
  return loadDeployment({ configDir, pipelinesDir: defaultPipelinesDir, dataDir: os.tmpdir(), env })
}
const refused = (extra: Parameters<typeof modelsWith>[0], message: RegExp, env: NodeJS.ProcessEnv = {}) =>
  assert.throws(
    () => load(extra, env),
    (err: Error) => {
      assert.is(err.name, 'ConfigError')
      assert.match(err.message, message)
      return true
    },
  )

test('a fallback list of known chat models loads', () => {
  const d = load({ models: [chat('primary', { fallbacks: ['sim-chat-instruct', 'sim-text-plain'] })] })
  assert.equal(d.models.models.find((m) => m.id === 'primary')?.fallbacks, ['sim-chat-instruct', 'sim-text-plain'])
})

test('the shipped catalog has one fallback, and it loads', () => {
  const d = load({})
  const withFallbacks = d.models.models.filter((m) => m.fallbacks?.length)
  assert.equal(
    withFallbacks.map((m) => [m.id, m.fallbacks]),
    [['sim-chat-thinking', ['sim-chat-instruct']]],
  )
})

test('bad fallbacks stop the load, naming the model and the fallback', () => {
  refused({ models: [chat('primary', { fallbacks: ['nope'] })] }, /model primary: fallback nope is not a model/)
  refused(
    { models: [chat('primary', { fallbacks: ['primary'] })] },
    /model primary: fallback primary is the model itself/,
  )
  refused(
    { models: [chat('primary', { fallbacks: ['sim-embed'] })] },
    /model primary: fallback sim-embed is a embedding model, not chat like primary/,
  )
  refused({ models: [chat('primary', { fallbacks: ['sim-chat'] })] }, /fallback sim-chat is not a model/)
  refused(
    {
      models: [
        {
          id: 'embed-b',
          model_type: 'embedding',
          backend: 'sim',
          served_name: 'sim-embed-384',
          reported_name: 'embed-b',
          dimensions: 128,
          fallbacks: ['sim-embed'],
        },
      ],
    },
    /model embed-b: fallback sim-embed makes vectors of 384 dimensions, not 128 like embed-b/,
  )
  refused(
    { models: [chat('primary', { fallbacks: ['sim-chat-instruct', 'sim-chat-instruct'] })] },
    /duplicate items|must NOT have duplicate/,
  )
})

test('a cycle of fallbacks stops the load, naming its path', () => {
  refused(
    { models: [chat('a', { fallbacks: ['b'] }), chat('b', { fallbacks: ['c'] }), chat('c', { fallbacks: ['a'] })] },
    /fallbacks form a cycle: a → b → c → a/,
  )
  refused(
    { models: [chat('a', { fallbacks: ['b'] }), chat('b', { fallbacks: ['a'] })] },
    /fallbacks form a cycle: a → b → a/,
  )
  // A chain without a way back is no cycle.
  load({ models: [chat('a', { fallbacks: ['b', 'c'] }), chat('b', { fallbacks: ['c'] }), chat('c')] })
})

const secretBackend = {
  url: '${UPSTREAM_URL}',
  api_key: '${UPSTREAM_TOKEN}',
  headers: { 'x-team': 'team-${TEAM}', 'x-literal': 'costs $${AMOUNT}' },
  replicas: ['${UPSTREAM_URL}/b'],
}
const secretModels = { backends: { vault: secretBackend }, models: [chat('vaulted', { backend: 'vault' })] }
const ENV = { UPSTREAM_URL: 'http://127.0.0.1:9', UPSTREAM_TOKEN: 'tok-s3cr3t-value', TEAM: 'blue' }

test("${NAME} in a backend: the catalog's backend holds the values, the deployment what was written", () => {
  const d = load(secretModels, ENV)
  assert.equal(d.models.backends.vault, { ...d.models.backends.vault, ...secretBackend })
  assert.not.ok(JSON.stringify(d.models).includes('tok-s3cr3t-value'), 'the loaded config holds no value')
  const catalog = createCatalog(d, { keys: { group: () => undefined, key: () => undefined }, env: ENV })
  const b = catalog.backend('vault')!
  assert.is(b.api_key, 'tok-s3cr3t-value')
  assert.is(b.baseUrl, 'http://127.0.0.1:9')
  assert.equal(b.replicas, ['http://127.0.0.1:9/b'])
  assert.equal(b.headers, { 'x-team': 'team-blue', 'x-literal': 'costs ${AMOUNT}' })
})

test('a variable that is not set (or empty) stops the load with its name and never a value', () => {
  refused(secretModels, /backend vault: api_key names the environment variable UPSTREAM_TOKEN, which is not set/, {
    UPSTREAM_URL: 'http://127.0.0.1:9',
    TEAM: 'blue',
  })
  refused(secretModels, /backend vault: headers\.x-team names the environment variable TEAM, which is not set/, {
    ...ENV,
    TEAM: '',
  })
  refused(
    { backends: { vault: { url: 'http://127.0.0.1:9', api_key: '${lower-case}' } }, models: [] },
    /backend vault: api_key: a \$\{ that is not \$\{NAME\}/,
  )
  refused(
    { backends: { vault: { url: 'http://127.0.0.1:9', replicas: ['${NOT_A_URL}'] } }, models: [] },
    /backend vault: replicas\[0\] is not an http\(s\) URL once its variables are read/,
    { NOT_A_URL: 'ftp://secret-host' },
  )
  try {
    load(secretModels, { ...ENV, UPSTREAM_URL: undefined })
    assert.unreachable('the load should fail')
  } catch (err) {
    assert.match((err as Error).message, /UPSTREAM_URL/)
    assert.not.ok((err as Error).message.includes('tok-s3cr3t-value'))
  }
})

test.run()
