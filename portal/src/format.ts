/** How the portal writes numbers, values and times (the operator's locale). */
export const count = (n: number) => n.toLocaleString()
export const value = (n: number) => n.toLocaleString(undefined, { maximumFractionDigits: 4 })
export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—')
