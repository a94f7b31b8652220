/**
 * Prometheus text exposition parsed by a maintained parser (parse-prometheus-text-format, a
 * devDependency): it reads every line (names, labels, escapes, values) and throws on a line
 * that is not valid. It folds a histogram's series into one when they carry labels, so
 * histograms are read a second time as untyped lines (`_bucket`, `_sum`, `_count` each a
 * family of their own) and grouped here by their labels, with the checks a scraper relies on:
 * buckets cumulative in `le` order, the +Inf bucket equal to `_count`.
 */
import { createRequire } from 'node:module'
import * as assert from 'uvu/assert'

export interface Sample {
  labels?: Record<string, string>
  value?: string
}
export interface Family {
  name: string
  help: string
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED'
  metrics: Sample[]
}

const parse = createRequire(import.meta.url)('parse-prometheus-text-format') as (text: string) => Family[]

export interface Exposition {
  /** Families with their declared types (histogram samples as the parser folds them: not for counts). */
  families: Map<string, Family>
  /** Every sample line by name, histogram lines included (`x_bucket`, `x_sum`, `x_count`). */
  lines: Map<string, Sample[]>
}

export function parsePrometheus(text: string): Exposition {
  const families = new Map(parse(text).map((f) => [f.name, f]))
  const untyped = text.replace(/^# TYPE (\S+) (histogram|summary)$/gm, '# TYPE $1 untyped')
  // Read untyped, each series' `_bucket` lines come as a family of their own: joined by name.
  const lines = new Map<string, Sample[]>()
  for (const f of parse(untyped)) lines.set(f.name, [...(lines.get(f.name) ?? []), ...f.metrics])
  return { families, lines }
}

const matches = (sample: Sample, labels: Record<string, string>) =>
  Object.entries(labels).every(([k, v]) => sample.labels?.[k] === v)

/** The samples of `name` whose labels include `labels`. */
export function samples(exposition: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  const found = exposition.lines.get(name)
  assert.ok(found, `metric ${name} is exposed`)
  return found.filter((m) => matches(m, labels))
}

/** The series of histogram `name` whose labels include `labels`, each checked well formed. */
export function histograms(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): { labels: Record<string, string>; count: number; sum: number }[] {
  assert.is(exposition.families.get(name)?.type, 'HISTOGRAM', `${name} is a histogram`)
  const bySeries = new Map<string, { labels: Record<string, string>; buckets: [number, number][] }>()
  for (const b of samples(exposition, `${name}_bucket`, labels)) {
    const { le, ...rest } = b.labels!
    const key = JSON.stringify(Object.entries(rest).sort())
    const series = bySeries.get(key) ?? { labels: rest, buckets: [] }
    series.buckets.push([le === '+Inf' ? Infinity : Number(le), Number(b.value)])
    bySeries.set(key, series)
  }
  return [...bySeries.values()].map(({ labels: own, buckets }) => {
    const what = `${name}${JSON.stringify(own)}`
    buckets.sort((a, b) => a[0] - b[0])
    assert.ok(buckets.length > 1, `${what}: has buckets`)
    assert.is(buckets.at(-1)![0], Infinity, `${what}: has a +Inf bucket`)
    for (let i = 1; i < buckets.length; i++)
      assert.ok(buckets[i]![1] >= buckets[i - 1]![1], `${what}: bucket le=${buckets[i]![0]} is cumulative`)
    const exact = (suffix: string) =>
      samples(exposition, `${name}${suffix}`, own).filter(
        (s) => Object.keys(s.labels ?? {}).length === Object.keys(own).length,
      )
    const count = Number(exact('_count')[0]?.value)
    assert.is(buckets.at(-1)![1], count, `${what}: +Inf bucket equals _count`)
    return { labels: own, count, sum: Number(exact('_sum')[0]?.value) }
  })
}

/** The one series of histogram `name` with these labels (and no others beyond them). */
export function histogram(
  exposition: Exposition,
  name: string,
  labels: Record<string, string>,
): { count: number; sum: number } {
  const found = histograms(exposition, name, labels).filter(
    (h) => Object.keys(h.labels).length === Object.keys(labels).length,
  )
  assert.is(found.length, 1, `one series of ${name} with ${JSON.stringify(labels)}`)
  return found[0]!
}
