/**
 * Close code 1011 end to end: a route whose reply cannot be written (a plugin's bug: a body that
 * JSON cannot hold) closes the socket with 1011 "internal error", and the cause is logged, not
 * sent. A test-only plugin makes the fault; everything else is the shipped Query service.
 */
import fs from 'node:fs'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { definePlugin, type AnyPlugin } from '../../kernel/contract/plugin.js'
import { reply } from '../../kernel/contract/reply.js'
import { defaultPipelinesDir } from '../../kernel/contract/paths.js'
import { startTestGateway, TEST_SERVICE_TOKEN, type TestGateway } from '../support/gateway.js'
import { QueryWsClient } from '../support/query-ws-client.js'

const test = suite('e2e query WebSocket: 1011 on an internal fault')
let gw: TestGateway

const emptySchema = { type: 'object', additionalProperties: false, properties: {} } as const

const unwritable = definePlugin({
  name: 'test-unwritable-reply',
  config: emptySchema,
  setup: () => ({
    async request(ex) {
      ex.reply = reply.json({ count: BigInt(1) })
    },
  }),
})

const FAULTY_ROUTE = `
  - id: test-fault
    ws: /ws
    match: { action: fault }
    body: json
    steps:
      - query-auth: { query_param: access_token }
      - test-unwritable-reply
`

test.before(async () => {
  const shipped = fs.readFileSync(path.join(defaultPipelinesDir, 'query.yaml'), 'utf8')
  gw = await startTestGateway({
    plugins: [unwritable as AnyPlugin],
    files: { 'pipelines/query.yaml': shipped.trimEnd() + '\n' + FAULTY_ROUTE },
  })
})
test.after(() => gw.close())

test('a reply the kernel cannot write closes the socket with 1011, its cause only in the log', async () => {
  const client = await QueryWsClient.open(gw.url, TEST_SERVICE_TOKEN)
  client.send({ id: 'f1', action: 'fault' })
  const closed = await client.closed
  assert.is(closed.code, 1011)
  assert.is(closed.reason, 'internal error')
  assert.not.ok(
    client.messages.some((m) => JSON.stringify(m).includes('BigInt')),
    'the cause is not sent',
  )
  assert.ok(
    gw.logs.some((l) => l.includes('BigInt')),
    'the cause is logged',
  )
})

test.run()
