/**
 * Spend against budget, per key and per group: for each budget, what its current term (UTC
 * day, ISO week or month, as the gateway counts it) has charged so far — the sum of `charged`
 * of the term's records, client requests and internal calls — as a bar with the budget, the
 * spend and what remains; at 80 % and above a warning, at 100 % "over budget" (the gateway then
 * refuses the key's or group's requests with 403 until the term ends).
 */
import { api, type Group, type Key, type List, type UsageRow } from '../api.js'
import { value, when } from '../format.js'
import { useLoad } from '../use-load.js'
import { DataTable } from '../data-table.js'

type Term = 'day' | 'week' | 'month'
const DAY = 86_400_000
export const WARN_AT = 0.8

/** The start of the budget term containing `now` (UTC), as plugins/budget/terms.ts counts it. */
export function termStart(term: Term, now: number): number {
  const d = new Date(now)
  const dayStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())
  if (term === 'day') return dayStart
  if (term === 'week') return dayStart - ((d.getUTCDay() + 6) % 7) * DAY
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
}

interface Line {
  id: string
  kind: 'key' | 'group'
  amount: number
  term: Term
  start: number
  spent: number
}

async function loadSpend(): Promise<{ lines: Line[]; unbudgeted: { keys: number; groups: number } }> {
  const now = Date.now()
  const [keys, groups] = await Promise.all([api.get<List<Key>>('/keys'), api.get<List<Group>>('/groups')])
  const budgeted = [
    ...keys.data.flatMap((k) =>
      k.budget
        ? [{ id: k.id, kind: 'key' as const, amount: k.budget.amount, term: (k.budget.term ?? 'month') as Term }]
        : [],
    ),
    ...groups.data.flatMap((g) =>
      g.budget ? [{ id: g.id, kind: 'group' as const, amount: g.budget.amount, term: g.budget.term as Term }] : [],
    ),
  ]
  // One summary per dimension and term in use (at most six calls).
  const wanted = [...new Set(budgeted.map((b) => `${b.kind}:${b.term}`))]
  const sums = new Map<string, number>()
  await Promise.all(
    wanted.map(async (w) => {
      const [kind, term] = w.split(':') as ['key' | 'group', Term]
      const rows = await api.get<List<UsageRow>>(`/usage?by=${kind}&from=${termStart(term, now)}&to=${now + 1}`)
      for (const r of rows.data) sums.set(`${w}:${r[kind] ?? ''}`, r.charged)
    }),
  )
  return {
    lines: budgeted.map((b) => ({
      ...b,
      start: termStart(b.term, now),
      spent: sums.get(`${b.kind}:${b.term}:${b.id}`) ?? 0,
    })),
    unbudgeted: {
      keys: keys.data.filter((k) => !k.budget).length,
      groups: groups.data.filter((g) => !g.budget).length,
    },
  }
}

/** The spend as a bar (a <meter>), its share in per cent, and a warning from 80 %. */
function SpendBar({ line }: { line: Line }) {
  const share = line.amount > 0 ? line.spent / line.amount : line.spent > 0 ? Infinity : 0
  const level = share >= 1 ? 'over' : share >= WARN_AT ? 'warn' : 'ok'
  const pct = Number.isFinite(share) ? Math.round(share * 100) : 100
  return (
    <div class={`spend ${level}`}>
      {/* A native meter: green below the warning line, amber from it, red at the budget. */}
      <meter
        aria-label={`Spend of ${line.kind} ${line.id}`}
        min={0}
        max={line.amount}
        low={line.amount * WARN_AT}
        high={line.amount}
        optimum={0}
        value={line.spent}
        title={`${pct} % of the budget`}
      />
      <span class="pct">{pct} %</span>
      {level !== 'ok' && (
        <span class="badge" data-testid="spend-warning">
          {level === 'over' ? 'Over budget' : 'Near the limit'}
        </span>
      )}
    </div>
  )
}

export function SpendTab() {
  const { data, error, reload } = useLoad(loadSpend)
  const lines = data?.lines ?? []
  const near = lines.filter((l) => (l.amount === 0 ? l.spent > 0 : l.spent / l.amount >= WARN_AT))
  return (
    <section aria-labelledby="spend-title">
      <h2 id="spend-title">Spend against budget</h2>
      <p class="hint">
        Per key and per group with a budget: what its current term (UTC day, ISO week from Monday, or month) has been
        charged so far — the indicative value of its requests and their internal calls — against its budget. From{' '}
        {Math.round(WARN_AT * 100)} % a warning; at 100 % the gateway refuses its requests (403, term budget exhausted)
        until the term ends.{' '}
        <button type="button" class="secondary" onClick={() => void reload()}>
          Refresh
        </button>
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {near.length > 0 && (
        <p class="warning" role="status">
          Near or over the limit: {near.map((l) => `${l.kind} ${l.id}`).join(', ')}.
        </p>
      )}
      <DataTable
        caption="Spend against budget"
        columns={['Budget of', 'Term', 'Budget', 'Spent', 'Remaining', 'Share spent']}
        rows={lines}
        text={(l) => `${l.kind} ${l.id} ${l.term}`}
        filters={[{ label: 'Kind', of: (l) => l.kind }]}
        empty="No key or group has a budget (set one in the Groups tab, or on a key through the admin API)."
        row={(l) => (
          <tr key={`${l.kind}:${l.id}`} data-spend={`${l.kind}:${l.id}`}>
            <th scope="row">
              {l.kind} {l.id}
            </th>
            <td>
              {l.term} <span class="hint">since {when(new Date(l.start).toISOString())}</span>
            </td>
            <td data-field="budget">{value(l.amount)}</td>
            <td data-field="spent">{value(l.spent)}</td>
            <td data-field="remaining">{value(Math.max(0, l.amount - l.spent))}</td>
            <td>
              <SpendBar line={l} />
            </td>
          </tr>
        )}
      />
      {data && (
        <p class="hint">
          Without a budget: {data.unbudgeted.keys} keys, {data.unbudgeted.groups} groups.
        </p>
      )}
    </section>
  )
}
