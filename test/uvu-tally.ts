/**
 * The tally of a uvu run, read from the summary uvu prints at its end:
 *
 *     Total:     600     the tests that ran (uvu leaves skipped ones out of it)
 *     Passed:    593
 *     Skipped:   2
 *
 * Because skipped tests are not in "Total", failed = total - passed. That also counts the
 * tests of a suite whose `before` hook threw: uvu prints no FAIL line for them (and exits 0),
 * but they ran none of their checks.
 */

export interface UvuTally {
  readonly passed: number
  readonly failed: number
  readonly skipped: number
  /** False when the output has no summary (uvu stopped before printing it). */
  readonly complete: boolean
}

// uvu colours its summary; the numbers are read from the plain text.
const ANSI = /\x1b\[[0-9;]*m/g

function count(plain: string, label: string): number | undefined {
  const m = new RegExp(`^\\s*${label}:\\s+(\\d+)\\s*$`, 'm').exec(plain)
  return m ? Number(m[1]) : undefined
}

export function tallyUvu(output: string): UvuTally {
  const plain = output.replace(ANSI, '')
  const total = count(plain, 'Total')
  const passed = count(plain, 'Passed') ?? 0
  const skipped = count(plain, 'Skipped') ?? 0
  if (total === undefined) return { passed, failed: 0, skipped, complete: false }
  return { passed, failed: Math.max(0, total - passed), skipped, complete: true }
}

/** The plain last line of `npm test`. */
export function summaryLine(tally: UvuTally): string {
  const line = `${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped`
  return tally.complete ? line : `${line} (uvu printed no summary: the run stopped early)`
}
