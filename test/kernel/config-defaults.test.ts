/**
 * A plugin's `setup` receives its options with the schema's defaults filled in (ajv's
 * `useDefaults`, at load), nested ones included, so plugins read `config.x` without restating
 * the default (`config.x ?? …`); the types say the same (test/kernel/contract.types.ts).
 */
import { defaultsSchema } from './contract.types.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { definePlugin } from '../../kernel/contract/plugin.js'
import { checkOptions } from '../../kernel/run/loader.js'
import { setupPlugin } from '../../bin/testing/harness.js'
import multipartUpload from '../../plugins/multipart-upload/index.js'
import queryRealtime from '../../plugins/query-realtime/index.js'
import query from '../../plugins/query/index.js'

const test = suite('kernel: a plugin set up with {} receives the schema defaults')

/** The schema the type test (contract.types.ts, §5) checks, here checked at run time. */
const schema = defaultsSchema

test('setup sees the defaults, nested ones too, and no value for an option without one', async () => {
  const seen: unknown[] = []
  const plugin = definePlugin({
    name: 'defaults-seen',
    config: schema,
    setup(config) {
      seen.push(config)
      return {}
    },
  })
  await setupPlugin(plugin, {})
  assert.equal(seen, [{ route: 'chat-internal', cache: { size: 10 } }])
})

test('a given option is kept; the defaults fill only what is missing', async () => {
  const seen: unknown[] = []
  const plugin = definePlugin({
    name: 'defaults-kept',
    config: schema,
    setup(config) {
      seen.push(config)
      return {}
    },
  })
  await setupPlugin(plugin, { route: 'other', cache: { label: 'x' } })
  assert.equal(seen, [{ route: 'other', cache: { label: 'x', size: 10 } }])
})

function defaultsOf(plugin: Parameters<typeof checkOptions>[0]): Record<string, unknown> {
  const checked = checkOptions(plugin, {})
  if (!checked.ok) throw new Error(checked.reason)
  return checked.options as Record<string, unknown>
}

test('plugins that read their options bare get the values they used to restate', () => {
  const upload = defaultsOf(multipartUpload)
  assert.is(upload.file_field, 'file')
  assert.is(upload.max_file_bytes, 67108864)
  assert.is(upload.max_parts, 128)
  const realtime = defaultsOf(queryRealtime)
  assert.equal(realtime.semantic_cache, { threshold: 0.95, max_entries: 1000, max_age_ms: 3600000 })
  assert.is(realtime.embeddings_route, 'embeddings')
  const search = defaultsOf(query).search as Record<string, unknown>
  assert.is(search.max_top_k, 100)
  assert.is(search.rerank_candidates, 50)
})

test.run()
