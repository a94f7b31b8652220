/**
 * A fake `embeddings` route for the knowledge plugins' isolation tests: a hashed bag of words
 * in 32 dimensions (so shared words mean nearby vectors), answered as the backend would (JSON
 * text), with every call counted. The real model is exercised by test/e2e/knowledge-api.
 */
import { Usage } from '../../kernel/contract/usage.js'
import type { GatewayError } from '../../kernel/contract/errors.js'
import { reply } from '../../kernel/contract/reply.js'
import type { CallOptions, CallResult } from '../../kernel/contract/kernel.js'

export const DIMENSION = 32

export function bagOfWords(text: string): number[] {
  const v = new Array<number>(DIMENSION).fill(0)
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    let h = 0
    for (const c of w) h = (h * 31 + c.charCodeAt(0)) >>> 0
    v[h % DIMENSION]! += 1
  }
  const norm = Math.hypot(...v) || 1
  return v.map((x) => x / norm)
}

export interface FakeEmbeddings {
  calls: { routeId: string; body: { model: string; input: string[] }; options?: CallOptions }[]
  /** Fail the next call with this error. */
  failNext?: GatewayError
  call(routeId: string, body: unknown, options?: CallOptions): Promise<CallResult>
}

export function fakeEmbeddings(): FakeEmbeddings {
  const fake: FakeEmbeddings = {
    calls: [],
    async call(routeId, body, options) {
      const b = body as { model: string; input: string[] }
      fake.calls.push({ routeId, body: b, options })
      if (fake.failNext) {
        const err = fake.failNext
        fake.failNext = undefined
        throw err
      }
      const data = b.input.map((text, index) => ({ object: 'embedding', index, embedding: bagOfWords(text) }))
      return {
        reply: reply.text('application/json', JSON.stringify({ object: 'list', model: b.model, data })),
        headers: new Map(),
        usage: new Usage(undefined),
      }
    },
  }
  return fake
}
