/** A key's `expires_at` as keys.yaml and the admin API take it: an ISO 8601 date-time with its zone, or epoch ms. */

const ISO = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i
/** Epoch milliseconds below this (March 1973) are epoch seconds by mistake. */
const SECONDS = 1e11
/** The largest time a JavaScript Date holds. */
const MAX_TIME = 8.64e15

/** Epoch ms of `raw`; `fail` is called with the reason when it is no such time. */
export function expiryTime(raw: string | number, fail: (problem: string) => never): number {
  if (typeof raw === 'number') {
    if (!Number.isSafeInteger(raw) || raw < 0 || raw > MAX_TIME)
      fail(`expires_at ${raw} is not a time in epoch milliseconds`)
    if (raw < SECONDS)
      fail(`expires_at ${raw} looks like epoch seconds: give epoch milliseconds or an ISO 8601 date-time`)
    return raw
  }
  const m = ISO.exec(raw)
  const t = m ? Date.parse(raw) : Number.NaN
  // Date.parse rolls 2027-02-30 over into March: the day must exist in its month.
  const day = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))).getUTCDate() : 0
  if (Number.isNaN(t) || day !== Number(m?.[3]))
    fail(
      `expires_at ${JSON.stringify(raw)} is not an ISO 8601 date-time with its zone (2027-01-31T00:00:00Z) or epoch milliseconds`,
    )
  return t
}
