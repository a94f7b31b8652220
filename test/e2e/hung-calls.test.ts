/**
 * Every slot comes back (issue 31, point 4): a model call that hangs ends at its deadline, frees
 * its fair-queue slot, and the next request is served. The in-process embedder (capacity 1: one
 * worker thread) is hung through its test hook; a chat model server that never answers is a
 * loopback server that holds the request.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { dump, load } from 'js-yaml'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { defaultConfigDir } from '../../kernel/contract/paths.js'
import fs from 'node:fs'
import path from 'node:path'
import { failIfStuck } from '../support/stuck.js'

const test = suite('e2e hung calls: deadlines free their slots')

const post = (gw: TestGateway, route: string, body: unknown) =>
  fetch(`${gw.url}/v1/${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

test('a hung embedder: the request gets 504 at the deadline, the worker restarts, the request waiting behind it is served', async () => {
  const gw = await startTestGateway({ server: { embedder: { deadline_ms: 3000 } } })
  try {
    gw.embedder!.hangNextJob()
    const hung = post(gw, 'embeddings', { model: 'use-lite', input: 'held forever' })
    // Sent while the one slot (capacity 1) is held: it waits in the gateway's queue.
    await new Promise((r) => setTimeout(r, 200))
    const behind = post(gw, 'embeddings', { model: 'use-lite', input: ['served after the restart'] })
    const first = await failIfStuck(hung, 'the hung embeddings request')
    assert.is(first.status, 504)
    const error = (await first.json()) as { error: { message: string } }
    assert.match(error.error.message, /did not answer within 3000 ms; it was restarted/)
    const second = await failIfStuck(behind, 'the embeddings request behind the hung one')
    assert.is(second.status, 200)
    const body = (await second.json()) as { data: { embedding: number[] }[] }
    assert.is(body.data[0]!.embedding.length, 512)
    // And the next one, on the restarted worker, too.
    const third = await post(gw, 'embeddings', { model: 'use-lite', input: 'and again' })
    assert.is(third.status, 200)
  } finally {
    await gw.close()
  }
})

/** A chat server that never answers its first request, and answers the others at once. */
async function silentOnce(): Promise<{ url: string; held: () => number; close: () => Promise<void> }> {
  let requests = 0
  const server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      requests++
      if (requests === 1) return // held: no status, no bytes, ever
      const reply = {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 0,
        model: 'silent-7b',
        choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

test("a chat server that never answers: 504 at the request's deadline, and the next request gets the one slot", async () => {
  const upstream = await silentOnce()
  const models = load(fs.readFileSync(path.join(defaultConfigDir, 'models.yaml'), 'utf8')) as {
    backends: Record<string, unknown>
    models: unknown[]
  }
  models.backends.silent = { url: upstream.url, capacity: 1 }
  models.models.push({ id: 'silent-chat', model_type: 'chat', backend: 'silent', served_name: 'silent-7b' })
  const gw = await startTestGateway({
    files: { 'config/models.yaml': dump(models) },
    server: { limits: { request_timeout_ms: 1500 } },
  })
  try {
    const ask = { model: 'silent-chat', messages: [{ role: 'user', content: 'hi' }] }
    const first = await failIfStuck(post(gw, 'chat/completions', ask), 'the request to the silent server')
    assert.is(first.status, 504)
    assert.is(((await first.json()) as { error: { message: string } }).error.message, 'upstream request timed out')
    const next = await failIfStuck(post(gw, 'chat/completions', ask), 'the next request')
    assert.is(next.status, 200, 'the slot (capacity 1) was freed')
    assert.is(
      ((await next.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content,
      'hello',
    )
    assert.is(upstream.held(), 2, 'the second request reached the server')
  } finally {
    await gw.close()
    await upstream.close()
  }
})

test.run()
