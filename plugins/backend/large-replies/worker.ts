/**
 * The large-reply worker: decodes and parses a whole completion, normalizes it and, when that
 * changed it, serializes and encodes it again, all off the event loop that serves requests. The
 * bytes come and go as transferred buffers; only the usage is copied (an object of a million
 * logprobs would be rebuilt field by field, costing the gateway's thread what parsing it would have).
 */
import { parentPort } from 'node:worker_threads'
import { normalizeCompletion } from '../openai-normalize.js'
import type { ReadJob, ReadReply } from './messages.js'

parentPort!.on('message', ({ id, buffer, length }: ReadJob) => {
  let out: ReadReply
  let back = buffer
  let backLength = length
  try {
    const body = JSON.parse(Buffer.from(buffer, 0, length).toString('utf8')) as Record<string, unknown>
    const { usage, changed } = normalizeCompletion(body)
    const model = typeof body.model === 'string' ? body.model : undefined
    if (changed) {
      // Encoded into a buffer of its own (Buffer.from may hand out a slice of a shared pool).
      const encoded = new TextEncoder().encode(JSON.stringify(body))
      back = encoded.buffer as ArrayBuffer
      backLength = encoded.byteLength
    }
    out = { id, ok: true, usage, model, buffer: back, length: backLength }
  } catch (err) {
    out = { id, ok: false, message: err instanceof Error ? err.message : String(err) }
  }
  parentPort!.postMessage(out, out.ok ? [back] : [])
})
