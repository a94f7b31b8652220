/** What passes between the backend plugin and its large-reply worker. */
import type { Usage } from '../openai-normalize.js'

export interface ReadJob {
  readonly id: number
  /** A whole completion as the model server wrote it. */
  readonly text: string
}

export type ReadReply =
  | {
      readonly id: number
      readonly ok: true
      readonly usage: Usage | undefined
      readonly model: string | undefined
      /** The normalized reply, when normalizing changed it; absent, the server's own text stands. */
      readonly text?: string
    }
  | { readonly id: number; readonly ok: false; readonly message: string }
