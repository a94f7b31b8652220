/**
 * A filter expression the gateway refuses: `position` is the 1-based character where the
 * problem starts, `message` names the construct. The API layer answers it with a 400.
 */
export class FilterError extends Error {
  override readonly name = 'FilterError'
  constructor(
    readonly position: number,
    readonly detail: string,
  ) {
    super(`filter expression, at character ${position}: ${detail}`)
  }
}
