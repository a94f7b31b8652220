import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { startTestGateway, TEST_KEY } from '../support/gateway.js'
import { defaultConfigDir, defaultPipelinesDir } from '../../kernel/contract/paths.js'
import { PipelineError } from '../../kernel/run/loader.js'

const test = suite('e2e pipelines: boot errors and hot reload')
const original = fs.readFileSync(path.join(defaultPipelinesDir, 'gateway.yaml'), 'utf8')
const auth = { authorization: `Bearer ${TEST_KEY}` }

async function bootError(text: string): Promise<string> {
  try {
    const gw = await startTestGateway({ files: { 'pipelines/gateway.yaml': text } })
    await gw.close()
  } catch (err) {
    return (err as Error).message
  }
  return 'booted'
}

/** The stable code of a boot error (`PipelineError.code`), which tools match on. */
async function bootErrorCode(text: string): Promise<string> {
  try {
    const gw = await startTestGateway({ files: { 'pipelines/gateway.yaml': text } })
    await gw.close()
  } catch (err) {
    return err instanceof PipelineError ? err.code : `not a PipelineError: ${(err as Error).message}`
  }
  return 'booted'
}

/** A small pipeline whose chat route has the given steps. */
const pipeline = (steps: string) => `pipeline: gateway
prefix: /v1
routes:
  - id: models-list
    http: GET /models
    steps: [auth, model-catalog]
  - id: chat
    http: POST /chat/completions
    body: chat-request
    steps:
${steps}
`

const metered =
  '      - auth\n      - model\n      - budget\n      - fair-queue\n      - usage-records\n      - backend'

test('the small pipeline itself boots', async () => {
  assert.is(await bootError(pipeline(metered)), 'booted')
})

test('a route that reaches a model unmetered does not load, naming the route and what it lacks', async () => {
  const msg = await bootError(pipeline('      - auth\n      - model\n      - fair-queue\n      - backend'))
  assert.match(
    msg,
    /gateway\.yaml: route chat: step 4 \(backend\): reaches a model server, but no earlier step meters its budget, records .*add budget, usage-records/,
  )
  const speech = await bootError(
    pipeline(metered) +
      `  - id: speech
    http: POST /audio/speech
    body: speech-request
    steps: [auth, { model: { types: [audio_speech] } }, budget, usage-records, speech]
`,
  )
  assert.match(speech, /route speech: step 5 \(speech\): reaches a model server, but no earlier step meters its queue/)
})

test('an unknown plugin stops the boot naming file, route and step', async () => {
  const msg = await bootError(pipeline('      - auth\n      - model\n      - teleport\n      - backend'))
  assert.match(msg, /gateway\.yaml: route chat: step 3 \(teleport\): unknown plugin 'teleport'/)
})

test('a bad option stops the boot naming file, route and step', async () => {
  const msg = await bootError(pipeline('      - auth\n      - model\n      - backend: { endpoint: telepathy }'))
  assert.match(
    msg,
    /gateway\.yaml: route chat: step 3 \(backend\): bad options: \/endpoint: must be equal to one of the allowed values/,
  )
})

test('an unknown option stops the boot too', async () => {
  const msg = await bootError(pipeline('      - auth\n      - model: { types: [chat], colour: red }\n      - backend'))
  assert.match(msg, /route chat: step 2 \(model\): bad options: \(root\): unknown property 'colour'/)
})

test('an unmet requires stops the boot naming file, route and step', async () => {
  const msg = await bootError(pipeline('      - auth\n      - backend\n      - model'))
  assert.match(msg, /gateway\.yaml: route chat: step 2 \(backend\): requires 'model', which no earlier step provides/)
})

test('a pipeline that breaks its schema stops the boot with the place', async () => {
  const msg = await bootError('pipeline: gateway\nroutes:\n  - id: x\n    http: FETCH /x\n    steps: [auth]\n')
  assert.match(msg, /gateway\.yaml: \/routes\/0\/http: must match pattern/)
})

test('every boot error carries a stable code', async () => {
  assert.is(
    await bootErrorCode(pipeline('      - auth\n      - model\n      - fair-queue\n      - backend')),
    'UNMETERED',
  )
  assert.is(
    await bootErrorCode(pipeline('      - auth\n      - model\n      - teleport\n      - backend')),
    'UNKNOWN_PLUGIN',
  )
  assert.is(
    await bootErrorCode(pipeline('      - auth\n      - model\n      - backend: { endpoint: telepathy }')),
    'BAD_OPTIONS',
  )
  assert.is(await bootErrorCode(pipeline('      - auth\n      - backend\n      - model')), 'REQUIRES_UNMET')
  assert.is(
    await bootErrorCode('pipeline: gateway\nroutes:\n  - id: x\n    http: FETCH /x\n    steps: [auth]\n'),
    'PIPELINE_INVALID',
  )
  assert.is(
    await bootErrorCode(pipeline(metered).replace('body: chat-request', 'body: telepathy-request')),
    'UNKNOWN_BODY_SCHEMA',
  )
  assert.is(
    await bootErrorCode(pipeline(metered) + '  - id: chat\n    internal: true\n    steps: [auth]\n'),
    'DUPLICATE_ROUTE_ID',
  )
})

test('a catalog whose replies would map back to the wrong model stops the boot naming both', async () => {
  const models = fs
    .readFileSync(path.join(defaultConfigDir, 'models.yaml'), 'utf8')
    .replace('served_name: sim-text-3b-plain', 'served_name: sim-text-3b')
  let msg = 'booted'
  try {
    await (await startTestGateway({ files: { 'config/models.yaml': models } })).close()
  } catch (err) {
    msg = (err as Error).message
  }
  assert.match(msg, /models\.yaml: models sim-text-boon and sim-text-plain both report the server name sim-text-3b/)
})

const extraRoute =
  '\n  - id: models-again\n    http: GET /models-again\n    steps:\n      - auth\n      - model-catalog: { action: list }\n'

test('hot reload: a bad edit keeps the old set, a good edit swaps, a request in flight finishes on its set', async () => {
  const gw = await startTestGateway({ simulatorLatency: { ttft_ms: 0, itl_ms: 15 } })
  try {
    const inflight = fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        model: 'sim-chat-instruct',
        messages: [{ role: 'user', content: 'long one' }],
        stream: true,
        max_tokens: 40,
      }),
    }).then((r) => r.text())

    gw.write(
      'pipelines',
      'gateway.yaml',
      original.replace(/- backend: \{ endpoint: chat \}/g, '- backend: { endpoint: nowhere }'),
    )
    assert.is(await gw.reload(), false, 'bad edit refused')
    assert.ok(
      gw.logs.some((l) => l.includes('reload refused') && l.includes('route chat')),
      'the refusal is logged with its place',
    )
    assert.is((await fetch(`${gw.url}/v1/models`, { headers: auth })).status, 200, 'old set still serves')

    gw.write('pipelines', 'gateway.yaml', original + extraRoute)
    assert.is(await gw.reload(), true, 'good edit swapped')
    assert.is((await fetch(`${gw.url}/v1/models-again`, { headers: auth })).status, 200, 'new route serves')

    const text = await inflight
    assert.ok(text.trimEnd().endsWith('data: [DONE]'), 'the in-flight stream completed')
    assert.not.ok(text.includes('"error"'))
  } finally {
    await gw.close()
  }
})

test('hot reload on file change, without a restart', async () => {
  const gw = await startTestGateway({ server: { watch: true } })
  try {
    assert.is((await fetch(`${gw.url}/v1/models-again`, { headers: auth })).status, 404)
    gw.write('pipelines', 'gateway.yaml', original + extraRoute)
    let status = 404
    for (let i = 0; i < 50 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100))
      status = (await fetch(`${gw.url}/v1/models-again`, { headers: auth })).status
    }
    assert.is(status, 200)
  } finally {
    await gw.close()
  }
})

test.run()
