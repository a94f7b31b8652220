/**
 * One request whose reply is read whole (a JSON answer), through undici's `dispatch` with a
 * handler that collects the bytes, instead of `request()`: no body stream, no async resource
 * and no listeners per request. `request()` with `body.text()` cost about a fifth more CPU a
 * call in a side-by-side run (bench note in docs/performance.md); the streamed paths keep
 * `request()`, whose body streams with back-pressure.
 */
import type { Dispatcher } from 'undici'
import type { IncomingHttpHeaders } from 'node:http'
import { ByteSink, LARGE_BODY } from '../../../protocols/http/byte-sink.js'
import type { UpstreamText } from '../../contract/upstream-call.js'
import { WholeAnswer } from '../../../protocols/http/whole-answer.js'

type Options = Omit<Dispatcher.DispatchOptions, 'signal'> & { signal: AbortSignal }

/** Rejects as `request()` does: with the abort reason when the signal stopped it, else undici's error. */
export function dispatchWhole(dispatcher: Dispatcher, options: Options): Promise<UpstreamText> {
  const { signal, ...dispatch } = options
  return new Promise<UpstreamText>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    let controller: Dispatcher.DispatchController | undefined
    let status = 0
    let headers: IncomingHttpHeaders = {}
    let chunks: Buffer[] = []
    let sink: ByteSink | undefined
    let size = 0
    let settled = false
    const onAbort = () => controller?.abort(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    const settle = () => {
      settled = true
      signal.removeEventListener('abort', onAbort)
    }
    dispatcher.dispatch(dispatch, {
      onRequestStart(c) {
        controller = c
        if (signal.aborted) c.abort(signal.reason)
      },
      onResponseStart(_c, statusCode, responseHeaders) {
        status = statusCode
        headers = responseHeaders
      },
      onResponseData(_c, chunk) {
        size += chunk.length
        if (sink) sink.push(chunk)
        else if (size < LARGE_BODY) chunks.push(chunk)
        else {
          // A large reply: one buffer, each chunk let go at once (protocols/http/byte-sink.ts).
          const declared = Number(headers['content-length'])
          sink = new ByteSink(Number.isSafeInteger(declared) ? declared : undefined, chunks)
          sink.push(chunk)
          chunks = []
        }
      },
      onResponseEnd() {
        if (settled) return
        settle()
        const bytes = sink ? sink.bytes() : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
        chunks = []
        sink = undefined
        const ct = headers['content-type']
        resolve(new WholeAnswer(status, Array.isArray(ct) ? ct[0] : ct, bytes))
      },
      onResponseError(_c, err) {
        if (settled) return
        settle()
        chunks = []
        sink = undefined
        reject(signal.aborted ? signal.reason : err)
      },
    })
  })
}
