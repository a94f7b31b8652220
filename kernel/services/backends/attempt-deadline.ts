/**
 * A backend's `timeout_ms`: how long one attempt may wait for a replica to start answering. Its
 * signal stops the attempt (as the request's own would) when the time is up; cleared once the
 * replica has started, it never fires, so an answer under way is never cut by it.
 */
import { GatewayError } from '../../contract/errors.js'

export class AttemptDeadline {
  /** The request's signal, or the deadline's when it passes first. */
  readonly signal: AbortSignal
  private readonly controller = new AbortController()
  private readonly timer: NodeJS.Timeout

  constructor(request: AbortSignal, ms: number) {
    this.signal = AbortSignal.any([request, this.controller.signal])
    this.timer = setTimeout(
      () =>
        this.controller.abort(
          new GatewayError(504, `the model server did not start answering within ${ms} ms`, {
            code: 'upstream_timeout',
          }),
        ),
      ms,
    )
  }

  /** The error of an attempt that ran out of time, or undefined when it did not. */
  get error(): GatewayError | undefined {
    return this.controller.signal.aborted ? (this.controller.signal.reason as GatewayError) : undefined
  }

  clear(): void {
    clearTimeout(this.timer)
  }
}
