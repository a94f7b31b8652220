/**
 * Prometheus's text exposition format (version 0.0.4): a family's `# HELP` and `# TYPE` lines,
 * then one line per sample, labels sorted and escaped, a histogram as its cumulative buckets
 * (`le`, ending at `+Inf`), `_sum` and `_count`. The metrics registry (kernel/services/metrics)
 * keeps the values; this says how they are written.
 */
import type { Labels } from '../../kernel/contract/index.js'

/** A label set as it is written inside the braces, names sorted: also the registry's key for a series. */
export function labelKey(labels: Labels): string {
  const names = Object.keys(labels).sort()
  return names.map((n) => `${n}="${escapeLabel(labels[n]!)}"`).join(',')
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')
}

const braces = (key: string) => (key ? `{${key}}` : '')
const formatNumber = (n: number) => (Number.isFinite(n) ? String(n) : n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN')

export function familyHeader(name: string, help: string, type: 'counter' | 'gauge' | 'histogram'): string[] {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`]
}

/** One sample; `key` is the series' labelKey. */
export function sampleLine(name: string, key: string, value: number): string {
  return `${name}${braces(key)} ${formatNumber(value)}`
}

/** A histogram's series: `counts[i]` observations at most `buckets[i]`, `count` in all, summing to `sum`. */
export function histogramLines(
  name: string,
  key: string,
  buckets: readonly number[],
  series: { readonly counts: readonly number[]; readonly sum: number; readonly count: number },
): string[] {
  const sep = key ? `${key},` : ''
  const lines = buckets.map((b, i) => `${name}_bucket{${sep}le="${b}"} ${series.counts[i]}`)
  lines.push(`${name}_bucket{${sep}le="+Inf"} ${series.count}`)
  lines.push(`${name}_sum${braces(key)} ${series.sum}`, `${name}_count${braces(key)} ${series.count}`)
  return lines
}
