/**
 * Requests over the period as SVG columns: the period cut into equal buckets, each column the
 * number of usage records that started in it (`data-value`, and a <title> for pointer and
 * screen-reader users). Drawn from the records themselves, not from the summary.
 */
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

export function TimeChart({
  title,
  buckets,
  label,
}: {
  title: string
  buckets: readonly Bucket[]
  label: (t: number) => string
}) {
  const width = 720
  const height = 140
  const base = height - 20
  const max = Math.max(1, ...buckets.map((b) => b.value))
  const step = width / Math.max(1, buckets.length)
  const id = `chart-${title.toLowerCase().replace(/\W+/g, '-')}`
  return (
    <figure class="chart wide">
      <figcaption id={id}>{title}</figcaption>
      <svg
        role="img"
        aria-labelledby={id}
        viewBox={`0 0 ${width} ${height}`}
        width={width}
        height={height}
        data-chart={title}
      >
        <line x1={0} y1={base} x2={width} y2={base} class="axis" />
        <text x={0} y={height - 4}>
          {buckets.length ? label(buckets[0]!.from) : ''}
        </text>
        <text x={width} y={height - 4} text-anchor="end">
          {buckets.length ? label(buckets[buckets.length - 1]!.from) : ''}
        </text>
        <text x={2} y={12}>
          {max}
        </text>
        {buckets.map((b, i) => {
          const h = ((base - 16) * b.value) / max
          return (
            <g key={b.from} class="bucket" data-from={new Date(b.from).toISOString()} data-value={b.value}>
              <title>{`${label(b.from)}: ${b.value}`}</title>
              <rect x={i * step + 1} y={base - h} width={Math.max(1, step - 2)} height={h} />
            </g>
          )
        })}
      </svg>
    </figure>
  )
}
