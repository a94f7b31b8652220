/**
 * The large-reply worker: parses a whole completion, normalizes it and, when that changed it,
 * serializes it again, all off the event loop that serves requests. Only strings and the
 * usage cross back (a string is copied in one piece; an object of a million logprobs would be
 * rebuilt field by field, costing the gateway's thread what parsing it would have).
 */
import { parentPort } from 'node:worker_threads'
import { normalizeCompletion } from '../openai-normalize.js'
import type { ReadJob, ReadReply } from './messages.js'

parentPort!.on('message', ({ id, text }: ReadJob) => {
  let out: ReadReply
  try {
    const body = JSON.parse(text) as Record<string, unknown>
    const { usage, changed } = normalizeCompletion(body)
    const model = typeof body.model === 'string' ? body.model : undefined
    out = changed ? { id, ok: true, usage, model, text: JSON.stringify(body) } : { id, ok: true, usage, model }
  } catch (err) {
    out = { id, ok: false, message: err instanceof Error ? err.message : String(err) }
  }
  parentPort!.postMessage(out)
})
