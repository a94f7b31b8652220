/** Budget terms in UTC: the period a moment falls in, with its start and end (epoch ms). */
import type { TermBudget } from '../../kernel/contract/index.js'

export interface TermPeriod {
  /** e.g. `2026-05-14` (day), `2026-W20` (week), `2026-05` (month). */
  readonly id: string
  readonly start: number
  readonly end: number
}

const DAY = 86_400_000
const pad = (n: number) => String(n).padStart(2, '0')

export function termPeriod(term: TermBudget['term'], now: number): TermPeriod {
  const d = new Date(now)
  const y = d.getUTCFullYear()
  const m = d.getUTCMonth()
  const dayStart = Date.UTC(y, m, d.getUTCDate())
  switch (term) {
    case 'day':
      return { id: `${y}-${pad(m + 1)}-${pad(d.getUTCDate())}`, start: dayStart, end: dayStart + DAY }
    case 'week': {
      // ISO weeks start on Monday; the week belongs to the year of its Thursday.
      const start = dayStart - ((d.getUTCDay() + 6) % 7) * DAY
      const thursday = new Date(start + 3 * DAY)
      const jan4 = Date.UTC(thursday.getUTCFullYear(), 0, 4)
      const week1Thursday = jan4 - ((new Date(jan4).getUTCDay() + 6) % 7) * DAY + 3 * DAY
      const week = 1 + Math.round((thursday.getTime() - week1Thursday) / (7 * DAY))
      return { id: `${thursday.getUTCFullYear()}-W${pad(week)}`, start, end: start + 7 * DAY }
    }
    case 'month':
      return { id: `${y}-${pad(m + 1)}`, start: Date.UTC(y, m, 1), end: Date.UTC(y, m + 1, 1) }
  }
}
