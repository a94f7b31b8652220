/** A fuzz report as a table: inputs and routes per door, and the statuses counted. */
import type { FuzzReport } from './campaign.js'
import { mib } from './heap.js'

function order(a: string, b: string): number {
  return Number.parseInt(a, 10) - Number.parseInt(b, 10) || a.localeCompare(b)
}

export function reportTable(report: FuzzReport): string {
  const statuses = [...new Set(Object.values(report.doors).flatMap((d) => Object.keys(d.statuses)))].sort(order)
  const widths = statuses.map((s) => Math.max(5, s.length) + 2)
  const pad = (s: string | number, n: number) => String(s).padStart(n)
  const lines = [
    `${'door'.padEnd(13)}${pad('inputs', 8)}${pad('routes', 8)}${statuses.map((s, i) => pad(s, widths[i]!)).join('')}`,
  ]
  for (const [name, d] of Object.entries(report.doors)) {
    if (d.skipped) lines.push(`${name.padEnd(13)}${pad('—', 8)}  skipped: ${d.skipped}`)
    else
      lines.push(
        `${name.padEnd(13)}${pad(d.inputs, 8)}${pad(Object.keys(d.routes).length, 8)}${statuses.map((s, i) => pad(d.statuses[s] ?? 0, widths[i]!)).join('')}`,
      )
  }
  const total = Object.values(report.doors).reduce((n, d) => n + d.inputs, 0)
  lines.push(
    '',
    `${total} inputs in ${(report.elapsedMs / 1000).toFixed(1)} s${report.unsent ? ` (${report.unsent} left unsent at the time limit)` : ''}; gateway 5xx: ${report.gateway5xx}; bad answers: ${report.failures.length}`,
    `heap: ${mib(report.before.heapUsed)} before, ${mib(report.after.heapUsed)} after (rss ${mib(report.before.rss)} → ${mib(report.after.rss)}; full collection: ${report.after.collected ? 'yes' : 'no'})`,
  )
  lines.push('slowest answers:', ...report.slowest.map((s) => `  ${s.ms.toFixed(0).padStart(6)} ms  ${s.input}`))
  return lines.join('\n')
}
