/**
 * Reading request bodies and writing JSON replies on plain node:http. Kept minimal on purpose:
 * the gateway's benchmarks measure against this server, so it must cost next to nothing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RequestLife } from './active-requests.js'
import { errorBody, SimError } from './api-error.js'

/** vLLM's own default is far larger than any test needs; 64 MiB matches the gateway's bound. */
const maxBodyBytes = 64 * 1024 * 1024

export function readBody(req: IncomingMessage, limit = maxBodyBytes): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        reject(new SimError(413, 'Request body too large.'))
        req.destroy()
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks)))
    req.on('error', reject)
    // A client that leaves mid-upload must not leave this promise pending forever.
    req.on('close', () => {
      if (!req.complete) reject(new SimError(400, 'Request body incomplete: the client went away.'))
    })
  })
}

export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) throw new SimError(400, 'Invalid JSON: empty body')
  try {
    return JSON.parse(raw.toString('utf8'))
  } catch {
    throw new SimError(400, 'Invalid JSON')
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

export function sendError(res: ServerResponse, err: SimError): void {
  sendJson(res, err.status, errorBody(err))
}

export function sendText(res: ServerResponse, status: number, contentType: string, text: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

export const sseHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
} as const

/** One server-sent event line as vLLM writes it. */
export function sseData(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`
}

export const sseDone = 'data: [DONE]\n\n'

/** Writes and, when the socket's buffer is full, waits for it to drain (or for the client to go). */
export async function writeOrWait(res: ServerResponse, data: string | Buffer, life: RequestLife): Promise<boolean> {
  if (life.signal.aborted || res.destroyed) return false
  if (res.write(data)) return true
  await new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done)
      life.signal.removeEventListener('abort', done)
      resolve()
    }
    res.on('drain', done)
    life.signal.addEventListener('abort', done, { once: true })
  })
  return !life.signal.aborted
}
