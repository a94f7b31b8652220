/**
 * Work on a large body cut into turns of the event loop: a loop asks `due` (cheap) as it goes,
 * and when its turn has run `TURN_MS` it awaits `next()`, so that the requests of others are
 * served in between. A turn is measured in time rather than bytes: a megabyte of one long
 * string and a megabyte of a million small numbers cost the loop very different times.
 */

/** How long one turn may hold the event loop. */
export const TURN_MS = 8

export class Turns {
  private until = performance.now() + TURN_MS

  /** Whether this turn has had its time. */
  get due(): boolean {
    return performance.now() >= this.until
  }

  /** Lets the event loop serve others, then starts a new turn. */
  async next(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve))
    this.until = performance.now() + TURN_MS
  }
}
