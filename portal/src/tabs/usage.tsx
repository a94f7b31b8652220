/**
 * Usage per key or per model over a chosen period (kept across tabs): requests over time, bar
 * charts of requests, tokens and indicative value, the same figures as a table, and CSV
 * exports (the summary, and the usage records themselves).
 */
import { useState } from 'preact/hooks'
import { api, type List, type UsageRecord, type UsageRow } from '../api.js'
import { BarChart } from '../bar-chart.js'
import { bucketize, TimeChart } from '../time-chart.js'
import { download, toCsv } from '../csv.js'
import { count, value, when } from '../format.js'
import { useLoad } from '../use-load.js'
import { DataTable } from '../data-table.js'
import { PeriodFields, periodText, usePeriod } from '../period.js'

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
  const { from, to, update } = usePeriod(true)
  const range = `from=${from}&to=${to}`
  const valid = Number.isFinite(from) && Number.isFinite(to)
  const { data, error } = useLoad(
    () => (valid ? api.get<List<UsageRow>>(`/usage?by=${by}&${range}`) : Promise.resolve({ data: [] })),
    [by, range],
  )
  // The records of the period (newest 10,000), for the requests-over-time chart.
  const timeline = useLoad(
    () => (valid ? api.get<List<UsageRecord>>(`/records?${range}&limit=10000`) : Promise.resolve({ data: [] })),
    [range],
  )
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
          update({ now: Date.now() })
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
        <PeriodFields prefix="usage" />
        <button type="submit">Refresh</button>
        <button type="button" class="secondary" onClick={exportSummary}>
          Export summary (CSV)
        </button>
        <button type="button" class="secondary" onClick={() => void exportRecords()}>
          Export records (CSV)
        </button>
      </form>
      <p class="hint">
        {periodText(from, to)}. The period is kept when you switch tabs. Value is indicative, not a charge.
      </p>
      {(error || problem || timeline.error) && (
        <p role="alert" class="error">
          {error || problem || timeline.error}
        </p>
      )}
      <div class="charts" aria-live="polite">
        <TimeChart
          title="Requests over time"
          unit="requests"
          to={to}
          buckets={bucketize(
            // Client requests only: the calls they caused have a parent.
            (timeline.data?.data ?? []).filter((r) => r.parent_request_id === null).map((r) => Date.parse(r.at)),
            from,
            to,
            24,
          )}
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
        rows={rows}
        text={name}
        empty="No requests in this period."
        row={(r) => (
          <tr key={name(r)}>
            <th scope="row">{name(r)}</th>
            <td>{count(r.requests)}</td>
            <td>{count(r.prompt_tokens)}</td>
            <td>{count(r.completion_tokens)}</td>
            <td>{count(r.total_tokens)}</td>
            <td>{value(r.value)}</td>
            <td>{when(r.last_at)}</td>
          </tr>
        )}
      />
    </section>
  )
}
