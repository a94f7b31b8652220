/**
 * eval_params over HTTP: a query with search on and both evaluations asked gets
 * `response.metadata.evaluation` (one judgement per retrieved context, the guard's label, their
 * usage), and every judgement is a chat-internal call recorded under the project's key.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { TEST_SERVICE_TOKEN, type TestGateway } from '../support/gateway.js'
import { ADMIN, demoRecords, post, startQueryGateway } from './query-bodies-gateway.js'
import type { Evaluation } from '../../plugins/query/evaluation.js'

const test = suite('e2e Query service: eval_params over HTTP')
let gw: TestGateway

test.before(async () => {
  gw = await startQueryGateway()
  const put = async (method: string, path: string, body: unknown) =>
    (
      await fetch(`${gw.url}/knowledge/v1/projects/demo/collections${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).status
  assert.is(await put('POST', '', { name: 'pets' }), 201)
  assert.is(
    await put('PUT', '/pets/documents/cats.md', {
      text: '# Cats\n\nCats sleep between twelve and sixteen hours each day.',
    }),
    200,
  )
  assert.is(
    await put('PUT', '/pets/documents/dogs.md', { text: '# Dogs\n\nDogs sleep at night and nap in the afternoon.' }),
    200,
  )
})
test.after(() => gw.close())

test('context_utilization and prompt_guard at response.metadata.evaluation, recorded under the key', async () => {
  const since = Date.now()
  const { status, body } = await post(
    gw,
    'query',
    {
      endpoint: 'query',
      query: 'How long do cats sleep?',
      request_source: 'override_params',
      enable_search: true,
      search_params: { collection: 'pets', top_k: 2, prompt_mode: 'unrestricted' },
      eval_params: { context_utilization: true, prompt_guard: true },
    },
    TEST_SERVICE_TOKEN,
  )
  assert.is(status, 200, JSON.stringify(body))
  const meta = body.response!.metadata
  const evaluation = meta.evaluation as Evaluation
  const contexts = Object.values(meta.sources as Record<string, unknown[]>).reduce((n, items) => n + items.length, 0)
  const cu = evaluation.results.context_utilization
  if (!cu || !('contexts' in cu)) throw new Error(JSON.stringify(cu))
  assert.is(cu.contexts.length, contexts, 'one judgement per retrieved context')
  assert.ok(cu.score >= 0 && cu.score <= 1)
  const guard = evaluation.results.prompt_guard
  if (!guard || 'error' in guard) throw new Error(JSON.stringify(guard))
  assert.ok(['safe', 'injection', 'jailbreak'].includes(guard.label))
  const judged = (await demoRecords(gw, since)).filter((r) => r.route === 'chat-internal')
  assert.is(judged.length, contexts + 1, 'a call per context and one for the guard')
  assert.is(
    evaluation.usage.inputTokens,
    judged.reduce((s, r) => s + r.prompt_tokens, 0),
  )
  assert.ok(Math.abs(evaluation.usage.cost - judged.reduce((s, r) => s + r.value, 0)) < 1e-12)
})

test.run()
