/**
 * Requests (and Errors: the same view, status 400 and above): the client requests of the usage
 * records over the shared period, newest first — time, key, model, route, status, tokens,
 * value, duration and request id. Key and model filter on the server; status, search and
 * paging in the browser over the fetched page (the newest 1,000 records). Opening a row loads
 * its internal calls (the records whose parent_request_id is its id).
 */
import { Fragment } from 'preact'
import { useState } from 'preact/hooks'
import { api, type List, type UsageRecord } from '../api.js'
import { count, value, when } from '../format.js'
import { useLoad } from '../use-load.js'
import { DataTable } from '../data-table.js'
import { PeriodFields, periodText, usePeriod } from '../period.js'

const LIMIT = 1000

const ms = (n: number | null) => (n === null ? '—' : `${count(n)} ms`)
const tokens = (r: UsageRecord) => r.prompt_tokens + r.completion_tokens

/** Whether a status matches a choice: '' all, '2xx', '4xx', '5xx', 'errors' (≥ 400), or an exact code. */
function statusMatches(choice: string, status: number): boolean {
  if (!choice) return true
  if (choice === 'errors') return status >= 400
  if (/^\dxx$/.test(choice)) return Math.floor(status / 100) === Number(choice[0])
  return status === Number(choice)
}

function InternalCalls({ id, columns }: { id: string; columns: number }) {
  const { data, error } = useLoad(
    () => api.get<List<UsageRecord>>(`/records?request_id=${encodeURIComponent(id)}`),
    [id],
  )
  const calls = (data?.data ?? []).filter((r) => r.parent_request_id === id)
  return (
    <tr class="detail" data-detail={id}>
      <td colSpan={columns}>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        {!data && !error && <p aria-busy="true">Loading…</p>}
        {data && calls.length === 0 && <p class="hint">No internal calls: this request called its model directly.</p>}
        {calls.length > 0 && (
          <div class="table-scroll">
            <table data-table="internal-calls">
              <caption>
                {calls.length} internal {calls.length === 1 ? 'call' : 'calls'} of request {id}
              </caption>
              <thead>
                <tr>
                  {['Time', 'Route', 'Model', 'Status', 'Tokens', 'Value', 'Charged', 'Duration', 'Request id'].map(
                    (c) => (
                      <th scope="col" key={c}>
                        {c}
                      </th>
                    ),
                  )}
                </tr>
              </thead>
              <tbody>
                {calls.map((c) => (
                  <tr key={c.request_id} data-call={c.request_id}>
                    <td>{when(c.at)}</td>
                    <td>{c.route}</td>
                    <td>{c.model}</td>
                    <td data-field="status">{c.status}</td>
                    <td>{count(tokens(c))}</td>
                    <td>{value(c.value)}</td>
                    <td>{value(c.charged)}</td>
                    <td>{ms(c.total_ms)}</td>
                    <th scope="row">
                      <code>{c.request_id}</code>
                    </th>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </td>
    </tr>
  )
}

const COLUMNS = [
  'Time',
  'Key',
  'Model',
  'Route',
  'Status',
  'Tokens',
  'Indicative value',
  'Duration',
  'Request id',
] as const

export function RequestsView({ errors }: { errors: boolean }) {
  const { from, to, update } = usePeriod(true)
  const [key, setKey] = useState('')
  const [model, setModel] = useState('')
  const [status, setStatus] = useState(errors ? 'errors' : '')
  const [open, setOpen] = useState<string>()
  const valid = Number.isFinite(from) && Number.isFinite(to)
  const query = new URLSearchParams({ from: String(from), to: String(to), limit: String(LIMIT) })
  if (key) query.set('key', key)
  if (model) query.set('model', model)
  const { data, error } = useLoad(
    () => (valid ? api.get<List<UsageRecord>>(`/records?${query}`) : Promise.resolve({ data: [] })),
    [query.toString()],
  )
  const records = data?.data ?? []
  const children = new Map<string, number>()
  for (const r of records)
    if (r.parent_request_id) children.set(r.parent_request_id, (children.get(r.parent_request_id) ?? 0) + 1)
  const requests = records.filter((r) => r.parent_request_id === null && statusMatches(status, r.status))
  const codes = [...new Set(records.filter((r) => r.parent_request_id === null).map((r) => r.status))].sort()
  const prefix = errors ? 'errors' : 'requests'
  const title = errors ? 'Errors' : 'Requests'
  const text = (r: UsageRecord) =>
    [r.request_id, r.key, r.group, r.model, r.route, r.status, r.outcome, r.fallback_from ?? ''].join(' ')
  return (
    <section aria-labelledby={`${prefix}-title`}>
      <h2 id={`${prefix}-title`}>{title}</h2>
      <form
        class="inline"
        aria-label={`${title} filters`}
        onSubmit={(e) => {
          e.preventDefault()
          update({ now: Date.now() })
        }}
      >
        <PeriodFields prefix={prefix} />
        <span class="field">
          <label for={`${prefix}-key`}>Key</label>
          <input
            id={`${prefix}-key`}
            value={key}
            placeholder="all"
            size={12}
            onChange={(e) => setKey((e.currentTarget as HTMLInputElement).value.trim())}
          />
        </span>
        <span class="field">
          <label for={`${prefix}-model`}>Model</label>
          <input
            id={`${prefix}-model`}
            value={model}
            placeholder="all"
            size={14}
            onChange={(e) => setModel((e.currentTarget as HTMLInputElement).value.trim())}
          />
        </span>
        <span class="field">
          <label for={`${prefix}-status`}>Status</label>
          <select
            id={`${prefix}-status`}
            value={status}
            onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value)}
          >
            {!errors && <option value="">all</option>}
            <option value="errors">400 and above</option>
            {!errors && <option value="2xx">2xx</option>}
            <option value="4xx">4xx</option>
            <option value="5xx">5xx</option>
            {codes
              .filter((c) => !errors || c >= 400)
              .map((c) => (
                <option key={c} value={String(c)}>
                  {c}
                </option>
              ))}
          </select>
        </span>
        <button type="submit">Refresh</button>
      </form>
      <p class="hint">
        {periodText(from, to)}. Client requests, newest first, with their internal calls when you open one. Key and
        model are filtered by the gateway; status, search and paging work in the browser over the newest {count(LIMIT)}{' '}
        records of the period{records.length >= LIMIT ? ' (this period has more: narrow it)' : ''}.
      </p>
      {errors && (
        <p class="hint" data-testid="errors-help">
          Only requests that were let in are recorded: a request refused before its key was recognised (401: no key, a
          wrong or expired key; 404: an unknown route) reaches no model and leaves no usage record, so it is not listed
          here. Those appear in the access log (server.yaml <code>access_log</code>), one JSON line per request.
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <DataTable
        caption={title}
        columns={COLUMNS}
        rows={requests}
        text={text}
        empty={errors ? 'No errors in this period.' : 'No requests in this period.'}
        row={(r) => (
          <Fragment key={r.request_id}>
            <tr data-request={r.request_id} class={r.status >= 400 ? 'failed' : undefined}>
              <td>{when(r.at)}</td>
              <td data-field="key">{r.key}</td>
              <td data-field="model">
                {r.model}
                {r.fallback_from ? <span class="hint"> (fallback from {r.fallback_from})</span> : null}
              </td>
              <td>{r.route}</td>
              <td data-field="status" title={r.outcome}>
                {r.status}
                {r.status >= 400 ? <span class="hint"> {r.outcome}</span> : null}
              </td>
              <td>{count(tokens(r))}</td>
              <td>{value(r.value)}</td>
              <td>{ms(r.total_ms)}</td>
              <th scope="row">
                <button
                  type="button"
                  class="link"
                  aria-expanded={open === r.request_id}
                  aria-label={`Internal calls of request ${r.request_id}`}
                  onClick={() => setOpen(open === r.request_id ? undefined : r.request_id)}
                >
                  <code>{r.request_id}</code>
                  {children.get(r.request_id) ? ` (${children.get(r.request_id)} calls)` : ''}
                </button>
              </th>
            </tr>
            {open === r.request_id && (
              <InternalCalls key={`${r.request_id}-calls`} id={r.request_id} columns={COLUMNS.length} />
            )}
          </Fragment>
        )}
      />
    </section>
  )
}

export const RequestsTab = () => <RequestsView errors={false} />
export const ErrorsTab = () => <RequestsView errors={true} />
