/**
 * What may be retried on another replica: only what cannot have reached the client. A 502 or
 * 503 is a replica that is down, overloaded or being restarted (a load balancer's answer, or
 * vLLM's while the engine is dead); other statuses are the request's own fault or a real answer.
 */
import type { Dispatcher } from 'undici'

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
