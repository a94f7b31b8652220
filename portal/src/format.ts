/** How the portal writes numbers, values and times (the operator's locale). */
export const count = (n: number) => n.toLocaleString()
// Indicative values of a few requests are fractions of a unit: keep their significant digits.
export const value = (n: number) =>
  Math.abs(n) < 1
    ? n.toLocaleString(undefined, { maximumSignificantDigits: 3 })
    : n.toLocaleString(undefined, { maximumFractionDigits: 2 })
export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—')
