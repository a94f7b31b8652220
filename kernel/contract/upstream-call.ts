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
  /** JSON text (sent as application/json) or a multipart form. */
  readonly body: string | FormData
  readonly accept?: string
  /**
   * The same request for another model, a fallback of `model` (models.yaml `fallbacks`), or
   * undefined when that model cannot take it (it is skipped). Called only when every replica of
   * `model` failed. Without it, the body's `model` (JSON or form field) is set to the fallback's
   * served name and the rest is sent as it was.
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

/** A model server's successful answer read whole (`Backends.callText`). */
export interface UpstreamText {
  readonly status: number
  readonly contentType: string | undefined
  readonly text: string
}
