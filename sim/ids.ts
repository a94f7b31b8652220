/**
 * Response ids: unique per process without a random draw per request (vLLM uses random UUIDs;
 * nothing depends on them being random, only on them being unique).
 */
import { randomBytes } from 'node:crypto'

const processPart = randomBytes(8).toString('hex')
let counter = 0

/** e.g. `chatcmpl-5f2c…-1a` */
export function responseId(prefix: string): string {
  counter++
  return `${prefix}-${processPart}${counter.toString(16).padStart(16, '0')}`
}

export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000)
}
