/**
 * The knowledge base's embeddings through the gateway's route (embed-route.ts): asked as base64,
 * so no batch of floats is printed and parsed as text; vectors read back in order, and a server
 * that answers floats anyway is read too.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { reply } from '../../../../kernel/contract/reply.js'
import { embedThroughRoute, type RouteCall } from '../../../../domains/query/knowledge/embed-route.js'

const test = suite('knowledge: embeddings through the route')
const principal = { keyId: 'k', group: 'g', legacy: false }
const b64 = (v: number[]) => Buffer.from(Float32Array.from(v).buffer).toString('base64')

test('asks for base64 and reads each vector back by its index', async () => {
  const bodies: unknown[] = []
  const call: RouteCall = async (_route, body) => {
    bodies.push(body)
    return {
      reply: reply.json({
        data: [
          { index: 1, embedding: b64([0.5, -0.25]) },
          { index: 0, embedding: b64([1, 0]) },
        ],
      }),
    }
  }
  const vectors = await embedThroughRoute(call, 'embeddings', principal)('m', ['a', 'b'])
  assert.equal((bodies[0] as { encoding_format: string }).encoding_format, 'base64')
  assert.equal(
    vectors.map((v) => [...v]),
    [
      [1, 0],
      [0.5, -0.25],
    ],
  )
})

test('floats are read too; anything else is a 502', async () => {
  const answer =
    (embedding: unknown): RouteCall =>
    async () => ({
      reply: reply.text('application/json', JSON.stringify({ data: [{ index: 0, embedding }] })),
    })
  assert.equal([...(await embedThroughRoute(answer([0.5, 1]), 'e', principal)('m', ['a']))[0]!], [0.5, 1])
  for (const bad of [{ x: 1 }, 'abc']) {
    try {
      await embedThroughRoute(answer(bad), 'e', principal)('m', ['a'])
      assert.unreachable('accepted')
    } catch (err) {
      assert.match((err as Error).message, /answered without a vector/)
    }
  }
})

test.run()
