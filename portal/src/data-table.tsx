/**
 * A table of the portal, with search, filters and paging in the browser over the rows it is
 * given: a search box (matching the text of each row), a select per filter (its values taken
 * from the rows), and pages of 10, 25, 50 or 100 rows. The table scrolls inside its own box on
 * a narrow screen, so the page itself never overflows. A caption for screen readers, one header
 * row of column names, then each row as the tab renders it (with its own `<th scope="row">`).
 */
import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'

export interface Filter<T> {
  label: string
  of: (row: T) => string
}

const SIZES = [10, 25, 50, 100] as const

export function DataTable<T>({
  caption,
  columns,
  rows,
  row,
  text,
  filters = [],
  empty = 'Nothing to show.',
  controls,
}: {
  caption: string
  columns: readonly string[]
  rows: readonly T[]
  /** A row's `<tr>` (or a fragment of rows: a row and its detail). */
  row: (r: T) => ComponentChildren
  /** What the search box matches, per row. */
  text: (r: T) => string
  filters?: readonly Filter<T>[]
  empty?: string
  /** More fields, shown beside the search box. */
  controls?: ComponentChildren
}) {
  const [query, setQuery] = useState('')
  const [chosen, setChosen] = useState<Record<string, string>>({})
  const [size, setSize] = useState<number>(25)
  const [page, setPage] = useState(0)
  const slug = caption.toLowerCase().replace(/\W+/g, '-')
  const q = query.trim().toLowerCase()
  const shown = rows.filter(
    (r) =>
      (!q || text(r).toLowerCase().includes(q)) &&
      filters.every((f) => !chosen[f.label] || f.of(r) === chosen[f.label]),
  )
  const pages = Math.max(1, Math.ceil(shown.length / size))
  const current = Math.min(page, pages - 1)
  // A new search or filter starts at the first page.
  useEffect(() => setPage(0), [q, JSON.stringify(chosen), size])
  const first = current * size
  const slice = shown.slice(first, first + size)
  return (
    <div class="table-box">
      <div class="table-tools">
        <label for={`${slug}-search`} class="visually-hidden">
          Search {caption}
        </label>
        <input
          id={`${slug}-search`}
          type="search"
          placeholder="Search"
          value={query}
          onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)}
        />
        {filters.map((f) => {
          const values = [...new Set(rows.map(f.of))].sort()
          const id = `${slug}-filter-${f.label.toLowerCase().replace(/\W+/g, '-')}`
          return (
            <span key={f.label} class="field">
              <label for={id}>{f.label}</label>
              <select
                id={id}
                value={chosen[f.label] ?? ''}
                onChange={(e) => setChosen({ ...chosen, [f.label]: (e.currentTarget as HTMLSelectElement).value })}
              >
                <option value="">all</option>
                {values.map((v) => (
                  <option key={v} value={v}>
                    {v}
                  </option>
                ))}
              </select>
            </span>
          )
        })}
        {controls}
      </div>
      <div class="table-scroll">
        <table data-table={slug}>
          <caption class="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {columns.map((c) => (
                <th scope="col" key={c}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {slice.map(row)}
            {slice.length === 0 && (
              <tr>
                <td colSpan={columns.length} class="hint">
                  {rows.length === 0 ? empty : 'No row matches.'}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label={`Pages of ${caption}`}>
        <span data-testid="pager-info">
          {shown.length === 0 ? '0' : `${first + 1}–${first + slice.length}`} of {shown.length}
          {shown.length < rows.length ? ` (of ${rows.length})` : ''}
        </span>
        <button
          type="button"
          class="secondary"
          disabled={current === 0}
          onClick={() => setPage(current - 1)}
          aria-label={`Previous page of ${caption}`}
        >
          Previous
        </button>
        <span>
          page {current + 1} of {pages}
        </span>
        <button
          type="button"
          class="secondary"
          disabled={current >= pages - 1}
          onClick={() => setPage(current + 1)}
          aria-label={`Next page of ${caption}`}
        >
          Next
        </button>
        <label for={`${slug}-size`}>Rows per page</label>
        <select
          id={`${slug}-size`}
          value={String(size)}
          onChange={(e) => setSize(Number((e.currentTarget as HTMLSelectElement).value))}
        >
          {SIZES.map((s) => (
            <option key={s} value={String(s)}>
              {s}
            </option>
          ))}
        </select>
      </nav>
    </div>
  )
}
