/**
 * What passes between the backend plugin and its large-reply worker. The bytes cross both ways
 * as transferred ArrayBuffers: moved, not copied (a 79 MB string was copied each way, 94 ms on
 * the event loop to send it).
 */
import type { Usage } from '../openai-normalize.js'

export interface ReadJob {
  readonly id: number
  /** A whole completion as the model server wrote it (UTF-8): `length` bytes from offset 0 of `buffer`. */
  readonly buffer: ArrayBuffer
  readonly length: number
}

export type ReadReply =
  | {
      readonly id: number
      readonly ok: true
      readonly usage: Usage | undefined
      readonly model: string | undefined
      /** What goes to the client (UTF-8): the server's own bytes given back, or the normalized reply. */
      readonly buffer: ArrayBuffer
      readonly length: number
    }
  | { readonly id: number; readonly ok: false; readonly message: string }
