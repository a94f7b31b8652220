/**
 * Requests over the period as SVG columns: the period cut into equal buckets, each column the
 * number of usage records that started in it (`data-value`, and a <title> for pointer and
 * screen-reader users). A y axis with "nice" ticks and grid lines, an x axis with a tick and a
 * time label every few columns. Drawn from the records themselves, not from the summary.
 * Hand-drawn SVG (docs/decisions.md: no chart library for two chart kinds).
 */
import { niceTicks } from './ticks.js'

export interface Bucket {
  from: number
  value: number
}

/** Cuts [from, to) into `count` equal buckets and counts the times that fall in each. */
export function bucketize(times: readonly number[], from: number, to: number, count: number): Bucket[] {
  const size = (to - from) / count
  const buckets = Array.from({ length: count }, (_, i) => ({ from: from + i * size, value: 0 }))
  for (const t of times) {
    const i = Math.floor((t - from) / size)
    if (i >= 0 && i < count) buckets[i]!.value++
  }
  return buckets
}

/** A time label fitting the period's length: clock time within two days, else the date. */
export function timeLabel(span: number): (t: number) => string {
  return (t) =>
    new Date(t).toLocaleString(
      undefined,
      span <= 2 * 86_400_000 ? { hour: '2-digit', minute: '2-digit' } : { month: 'short', day: 'numeric' },
    )
}

export function TimeChart({
  title,
  buckets,
  to,
  unit,
}: {
  title: string
  buckets: readonly Bucket[]
  /** The end of the last bucket. */
  to: number
  /** What a column counts (the y axis' title). */
  unit: string
}) {
  const width = 720
  const height = 200
  const left = 44
  const right = 12
  const top = 12
  const base = height - 40
  const span = buckets.length ? to - buckets[0]!.from : 0
  const label = timeLabel(span)
  const full = (t: number) => new Date(t).toLocaleString()
  const ticks = niceTicks(Math.max(1, ...buckets.map((b) => b.value)))
  const top_ = ticks[ticks.length - 1]!
  const y = (v: number) => base - ((base - top) * v) / top_
  const step = (width - left - right) / Math.max(1, buckets.length)
  // About six time labels, whatever the number of columns.
  const every = Math.max(1, Math.round(buckets.length / 6))
  const id = `chart-${title.toLowerCase().replace(/\W+/g, '-')}`
  return (
    <figure class="chart wide">
      <figcaption id={id}>{title}</figcaption>
      <svg role="img" aria-labelledby={id} viewBox={`0 0 ${width} ${height}`} data-chart={title}>
        {ticks.map((t) => (
          <g key={t} class="tick y">
            <line x1={left} y1={y(t)} x2={width - right} y2={y(t)} class={t === 0 ? 'axis' : 'grid'} />
            <text x={left - 6} y={y(t) + 4} text-anchor="end">
              {t.toLocaleString()}
            </text>
          </g>
        ))}
        <text x={12} y={(top + base) / 2} text-anchor="middle" transform={`rotate(-90 12 ${(top + base) / 2})`}>
          {unit}
        </text>
        <line x1={left} y1={top} x2={left} y2={base} class="axis" />
        {buckets.map((b, i) => {
          const h = base - y(b.value)
          return (
            <g key={b.from} class="bucket" data-from={new Date(b.from).toISOString()} data-value={b.value}>
              <title>{`${full(b.from)}: ${b.value}`}</title>
              <rect x={left + i * step + 1} y={base - h} width={Math.max(1, step - 2)} height={h} />
            </g>
          )
        })}
        {[...buckets.map((b) => b.from), to].map((t, i) =>
          i % every === 0 || i === buckets.length ? (
            <g key={`x${i}`} class="tick x">
              <line x1={left + i * step} y1={base} x2={left + i * step} y2={base + 5} class="axis" />
              <text
                x={left + i * step}
                y={base + 18}
                text-anchor={i === 0 ? 'start' : i === buckets.length ? 'end' : 'middle'}
              >
                {i === buckets.length || i + every / 2 <= buckets.length ? label(t) : ''}
              </text>
            </g>
          ) : null,
        )}
        <text x={(left + width - right) / 2} y={height - 4} text-anchor="middle">
          {span ? `time (each column ${duration(span / Math.max(1, buckets.length))})` : 'time'}
        </text>
      </svg>
    </figure>
  )
}

function duration(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`
  if (ms < 3_600_000) return `${Number((ms / 60_000).toFixed(1))} min`
  if (ms < 86_400_000) return `${Number((ms / 3_600_000).toFixed(1))} h`
  return `${Number((ms / 86_400_000).toFixed(1))} days`
}
