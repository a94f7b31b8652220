/**
 * Usage per key or per model over a chosen period: bar charts of requests, tokens and
 * indicative value, the same figures as a table, and CSV exports (the summary, and the usage
 * records themselves).
 */
import { useState } from 'preact/hooks'
import { api, type List, type UsageRecord, type UsageRow } from '../api.js'
import { BarChart } from '../bar-chart.js'
import { bucketize, TimeChart } from '../time-chart.js'
import { download, toCsv } from '../csv.js'
import { count, value, when } from '../format.js'
import { useLoad } from '../use-load.js'
import { DataTable } from '../data-table.js'

const PERIODS = [
  { id: 'hour', label: 'Last hour', ms: 3_600_000 },
  { id: 'day', label: 'Last 24 hours', ms: 86_400_000 },
  { id: 'week', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { id: 'month', label: 'Last 30 days', ms: 30 * 86_400_000 },
] as const

/** A time as a datetime-local field writes it (local time, to the minute). */
function localInput(t: number): string {
  const d = new Date(t - new Date(t).getTimezoneOffset() * 60_000)
  return d.toISOString().slice(0, 16)
}

const RECORD_COLUMNS = [
  'at',
  'request_id',
  'parent_request_id',
  'key',
  'group',
  'route',
  'model',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'value',
  'charged',
  'cached',
  'fallback_from',
  'status',
  'outcome',
  'total_ms',
] as const

export function UsageTab() {
  const [by, setBy] = useState<'key' | 'model'>('key')
  const [period, setPeriod] = useState<(typeof PERIODS)[number]['id'] | 'custom'>('day')
  const [now, setNow] = useState(() => Date.now())
  // A custom period: two datetime-local fields, in the browser's time zone.
  const [custom, setCustom] = useState(() => ({ from: localInput(now - 86_400_000), to: localInput(now) }))
  const preset = PERIODS.find((p) => p.id === period)
  const from = preset ? now - preset.ms : Date.parse(custom.from)
  const to = preset ? now : Date.parse(custom.to)
  const range = `from=${from}&to=${to}`
  const { data, error } = useLoad(() => api.get<List<UsageRow>>(`/usage?by=${by}&${range}`), [by, range])
  // The records of the period (newest 10,000), for the requests-over-time chart.
  const timeline = useLoad(() => api.get<List<UsageRecord>>(`/records?${range}&limit=10000`), [range])
  const [problem, setProblem] = useState('')
  const rows = data?.data ?? []
  const name = (r: UsageRow) => (by === 'key' ? r.key : r.model) ?? ''
  const exportSummary = () =>
    download(
      `usage-by-${by}.csv`,
      toCsv(
        [by, 'requests', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'value'],
        rows.map((r) => ({ ...r, [by]: name(r) })),
      ),
    )
  const exportRecords = async () => {
    setProblem('')
    try {
      const records = await api.get<List<UsageRecord>>(`/records?${range}&limit=10000`)
      download('usage-records.csv', toCsv(RECORD_COLUMNS, records.data as unknown as Record<string, unknown>[]))
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err))
    }
  }
  return (
    <section aria-labelledby="usage-title">
      <h2 id="usage-title">Usage</h2>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault()
          setNow(Date.now())
        }}
      >
        <label for="usage-by">Per</label>
        <select
          id="usage-by"
          value={by}
          onChange={(e) => setBy((e.currentTarget as HTMLSelectElement).value as 'key' | 'model')}
        >
          <option value="key">key</option>
          <option value="model">model</option>
        </select>
        <label for="usage-period">Period</label>
        <select
          id="usage-period"
          value={period}
          onChange={(e) => {
            setPeriod((e.currentTarget as HTMLSelectElement).value as typeof period)
            setNow(Date.now())
          }}
        >
          {PERIODS.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
          <option value="custom">Custom…</option>
        </select>
        {period === 'custom' && (
          <>
            <label for="usage-from">From</label>
            <input
              id="usage-from"
              type="datetime-local"
              required
              value={custom.from}
              onChange={(e) => setCustom({ ...custom, from: (e.currentTarget as HTMLInputElement).value })}
            />
            <label for="usage-to">To</label>
            <input
              id="usage-to"
              type="datetime-local"
              required
              value={custom.to}
              onChange={(e) => setCustom({ ...custom, to: (e.currentTarget as HTMLInputElement).value })}
            />
          </>
        )}
        <button type="submit">Refresh</button>
        <button type="button" class="secondary" onClick={exportSummary}>
          Export summary (CSV)
        </button>
        <button type="button" class="secondary" onClick={() => void exportRecords()}>
          Export records (CSV)
        </button>
      </form>
      <p class="hint">
        {when(new Date(from).toISOString())} to {when(new Date(to).toISOString())}. Value is indicative, not a charge.
      </p>
      {(error || problem) && (
        <p role="alert" class="error">
          {error || problem}
        </p>
      )}
      <div class="charts" aria-live="polite">
        <TimeChart
          title="Requests over time"
          buckets={bucketize(
            // Client requests only: the calls they caused have a parent.
            (timeline.data?.data ?? []).filter((r) => r.parent_request_id === null).map((r) => Date.parse(r.at)),
            from,
            to,
            24,
          )}
          label={(t) =>
            new Date(t).toLocaleString(undefined, {
              month: 'short',
              day: 'numeric',
              hour: '2-digit',
              minute: '2-digit',
            })
          }
        />
        <BarChart title="Requests" bars={rows.map((r) => ({ label: name(r), value: r.requests }))} format={count} />
        <BarChart title="Tokens" bars={rows.map((r) => ({ label: name(r), value: r.total_tokens }))} format={count} />
        <BarChart
          title="Indicative value"
          bars={rows.map((r) => ({ label: name(r), value: r.value }))}
          format={value}
        />
      </div>
      <DataTable
        caption={`Usage per ${by}`}
        columns={[
          by === 'key' ? 'Key' : 'Model',
          'Requests',
          'Prompt tokens',
          'Completion tokens',
          'Total tokens',
          'Indicative value',
          'Last request',
        ]}
      >
        {rows.map((r) => (
          <tr key={name(r)}>
            <th scope="row">{name(r)}</th>
            <td>{count(r.requests)}</td>
            <td>{count(r.prompt_tokens)}</td>
            <td>{count(r.completion_tokens)}</td>
            <td>{count(r.total_tokens)}</td>
            <td>{value(r.value)}</td>
            <td>{when(r.last_at)}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  )
}
