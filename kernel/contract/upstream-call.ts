/** The shapes of the one call to a model server (the backends service makes it: pools.ts). */
import type { Dispatcher, FormData } from 'undici'
import type { ModelConfig } from '../../schemas/models.schema.js'
import type { GatewayError } from './errors.js'

/** One call to a model server. */
export interface UpstreamCall {
  /** The catalog model called: its backend answers, and `ex.usage.model` names it. */
  readonly model: ModelConfig
  /** Path below the backend's base URL, e.g. `/v1/chat/completions`. */
  readonly path: string
  /** JSON (application/json) as text or UTF-8 bytes (a large body, encoded in turns), or a multipart form. */
  readonly body: string | Buffer | FormData
  readonly accept?: string
  /**
   * The same request for another model, a fallback of `model` (models.yaml `fallbacks`), or undefined
   * when that model cannot take it (it is skipped). Called only when every replica of `model` failed.
   * Without it, the body's `model` (JSON or form field) is the fallback's served name, the rest as it was.
   */
  readonly refit?: (model: ModelConfig) => UpstreamCall | undefined
}

/** A model server's successful answer (errors have been thrown as GatewayError). */
export interface UpstreamResponse {
  readonly status: number
  readonly contentType: string | undefined
  /** The body as it arrives, as undici gives it (the hot path reads it directly). */
  readonly body: Dispatcher.ResponseData['body']
  /** The body as chunks, a failure to read it turned into the right GatewayError. */
  chunks(): AsyncGenerator<Buffer>
  /** The whole body as text. */
  text(): Promise<string>
  /** What a failure while reading the body becomes (`streaming`: the reply has started). */
  failure(err: unknown, streaming: boolean): GatewayError | DOMException
}

/** An answer read whole (`Backends.callText`); a large one's `bytes` are its own, which a reader may move. */
export interface UpstreamText {
  readonly status: number
  readonly contentType: string | undefined
  readonly text: string
  readonly bytes: Buffer
}
