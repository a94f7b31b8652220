/**
 * A bar chart as plain SVG: one bar per row, labelled, with its figure at its end, in a <title>
 * and in `data-value` (what the browser test reads), over a value axis with "nice" ticks and
 * grid lines. Hand-drawn: a few lines, no chart library (docs/decisions.md).
 */
import { niceTicks } from './ticks.js'

export interface Bar {
  label: string
  value: number
}

export function BarChart({
  title,
  bars,
  format,
}: {
  title: string
  bars: readonly Bar[]
  format: (n: number) => string
}) {
  const width = 360
  const row = 26
  const labelWidth = 110
  const right = 56
  const axis = 24
  const height = Math.max(row, bars.length * row) + axis
  const base = height - axis
  const ticks = niceTicks(Math.max(0, ...bars.map((b) => b.value)), 3)
  const max = ticks[ticks.length - 1]!
  const x = (v: number) => labelWidth + ((width - labelWidth - right) * v) / max
  const id = `chart-${title.toLowerCase().replace(/\W+/g, '-')}`
  return (
    <figure class="chart">
      <figcaption id={id}>{title}</figcaption>
      <svg role="img" aria-labelledby={id} viewBox={`0 0 ${width} ${height}`} data-chart={title}>
        {bars.length === 0 && (
          <text x={4} y={18}>
            no requests in this period
          </text>
        )}
        {bars.length > 0 &&
          ticks.map((t) => (
            <g key={t} class="tick">
              <line x1={x(t)} y1={0} x2={x(t)} y2={base + 4} class={t === 0 ? 'axis' : 'grid'} />
              <text x={x(t)} y={base + 16} text-anchor="middle">
                {format(t)}
              </text>
            </g>
          ))}
        {bars.map((b, i) => {
          const w = x(b.value) - labelWidth
          return (
            <g
              key={b.label}
              class="bar"
              data-label={b.label}
              data-value={b.value}
              transform={`translate(0 ${i * row})`}
            >
              <title>{`${b.label}: ${format(b.value)}`}</title>
              <text x={labelWidth - 6} y={17} text-anchor="end">
                {b.label.length > 16 ? `${b.label.slice(0, 15)}…` : b.label}
              </text>
              <rect x={labelWidth} y={4} width={Math.max(1, w)} height={row - 8} rx={2} />
              <text x={labelWidth + Math.max(1, w) + 4} y={17}>
                {format(b.value)}
              </text>
            </g>
          )
        })}
      </svg>
    </figure>
  )
}
