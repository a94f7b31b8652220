/**
 * The web-search step alone: its (empty) options are checked as the loader checks them; with a
 * SearXNG-compatible server on 127.0.0.1 it returns the provider's results in the common shape
 * and records the search under the caller's key without its words; a bad count is a 400 that
 * asks no provider; the local provider without its collection finds nothing.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import webSearch from '../../../plugins/web-search/index.js'
import { configDirWith, makeKernel, runPlugin, setupPlugin } from '../../../bin/testing/harness.js'
import { startFakeSearxng } from '../../support/searxng.js'

const test = suite('plugin web-search')
const principal = { keyId: 'demo', group: 'demo', legacy: false }
const today = { from: 0, to: Date.now() + 86_400_000 }

test('options: none; any option is refused at load', async () => {
  await setupPlugin(webSearch, {})
  try {
    await setupPlugin(webSearch, { provider: 'searxng' })
    assert.unreachable('an unknown option must stop the load')
  } catch (err) {
    assert.match((err as Error).message, /bad options/)
  }
})

test('searxng: results in the common shape; the search recorded under the key, never its words', async () => {
  const engine = await startFakeSearxng()
  try {
    const kernel = makeKernel({
      configDir: configDirWith({
        'server.yaml': `web_search: { provider: searxng, url: "${engine.url}", max_results: 3 }\n`,
      }),
    })
    const r = await runPlugin(
      webSearch,
      {},
      { kernel, principal, body: { query: '  okapi habitats ', max_results: 2 } },
    )
    assert.equal(engine.queries, ['okapi habitats'], 'trimmed, sent once')
    const body = (r.reply as { body: { provider: string; results: { url: string; score: number }[] } }).body
    assert.is(body.provider, 'searxng')
    assert.equal(
      body.results.map((x) => x.url),
      ['https://example.org/lighthouses', 'https://example.org/second'],
    )
    const over = await runPlugin(webSearch, {}, { kernel, principal, body: { query: 'x', max_results: 4 } })
    assert.is(over.error?.status, 400)
    assert.is(over.error?.message, "max_results 4 is over this gateway's limit of 3")
    assert.is(engine.queries.length, 1, 'a bad count asks no provider')
    await kernel.records.flush()
    const records = await kernel.records.list(today, 10)
    assert.is(records.length, 1)
    assert.equal(
      [records[0]!.keyId, records[0]!.model, records[0]!.status, records[0]!.promptTokens],
      ['demo', 'web_search:searxng', 200, 0],
    )
    assert.not.match(JSON.stringify(records), /okapi/)
  } finally {
    await engine.close()
  }
})

test('local: a missing collection finds nothing (not a 5xx: the client did nothing wrong), recorded', async () => {
  const kernel = makeKernel()
  const r = await runPlugin(webSearch, {}, { kernel, principal, body: { query: 'api key' } })
  const body = (r.reply as { body: { provider: string; results: unknown[]; provider_description: string } }).body
  assert.equal([body.provider, body.results], ['local', []])
  assert.match(body.provider_description, /^not the web/)
  await kernel.records.flush()
  const records = await kernel.records.list(today, 10)
  assert.equal(
    records.map((x) => [x.model, x.status, x.outcome]),
    [['web_search:local', 200, 'done']],
  )
})

test.run()
