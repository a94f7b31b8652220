/**
 * A bar chart as plain SVG: one bar per row, labelled, with its figure in a <title> and in
 * `data-value` (what the browser test reads). Hand-drawn: a few lines, no chart library.
 */
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
  const labelWidth = 120
  const height = Math.max(row, bars.length * row)
  const max = Math.max(0, ...bars.map((b) => b.value)) || 1
  const id = `chart-${title.toLowerCase().replace(/\W+/g, '-')}`
  return (
    <figure class="chart">
      <figcaption id={id}>{title}</figcaption>
      <svg
        role="img"
        aria-labelledby={id}
        viewBox={`0 0 ${width} ${height}`}
        width={width}
        height={height}
        data-chart={title}
      >
        {bars.length === 0 && (
          <text x={4} y={18}>
            no requests in this period
          </text>
        )}
        {bars.map((b, i) => {
          const w = ((width - labelWidth - 80) * b.value) / max
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
