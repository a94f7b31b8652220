/**
 * What may be retried on another replica: only what cannot have reached the client. A 502 or
 * 503 is a replica that is down, overloaded or being restarted (a load balancer's answer, or
 * vLLM's while the engine is dead); other statuses are the request's own fault or a real answer.
 * And what a failure to reach or read a replica becomes.
 */
import type { Dispatcher } from 'undici'
import { GatewayError } from '../../contract/errors.js'

export function retriable(status: number): boolean {
  return status === 502 || status === 503
}

type Body = Dispatcher.ResponseData['body']

/**
 * Waits for a stream's first bytes and puts them back (the reader sees the body whole), or
 * rejects when the body breaks first. A stream's headers come before it runs (vLLM sends them
 * when it accepts the request): a replica may still die between them and the first token.
 */
export function firstChunk(body: Body): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (): void => {
      body.off('data', onData)
      body.off('end', onEnd)
      body.off('error', onError)
      body.off('close', onClose)
    }
    const onData = (chunk: Buffer): void => {
      done()
      body.pause()
      body.unshift(chunk)
      resolve()
    }
    const onEnd = (): void => {
      done()
      resolve()
    }
    const onError = (err: Error): void => {
      done()
      reject(err)
    }
    const onClose = (): void => {
      done()
      reject(new Error('the stream closed before its first bytes'))
    }
    body.on('data', onData)
    body.once('end', onEnd)
    body.once('error', onError)
    body.once('close', onClose)
  })
}

/** What a failure to reach or read the model server becomes, given why the request stopped. */
export function transportFailure(signal: AbortSignal, cause: unknown, streaming: boolean): GatewayError | DOMException {
  if (signal.aborted) {
    const reason: unknown = signal.reason
    if (reason instanceof GatewayError) {
      // A stream cut by the time limit ends with the spec's in-band error (code 502).
      return streaming ? new GatewayError(502, reason.message, { code: 'upstream_timeout' }) : reason
    }
    return reason instanceof DOMException ? reason : new DOMException('client closed the request', 'AbortError')
  }
  if (cause instanceof GatewayError) return cause
  return new GatewayError(502, 'upstream request failed', { code: 'upstream_failed', cause })
}
