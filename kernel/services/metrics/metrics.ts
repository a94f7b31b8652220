/**
 * Prometheus metrics, written in the text exposition format (protocols/prometheus). A registry
 * made once per process, so counters survive hot reloads; a metric asked for twice by name is
 * the same metric (a plugin set up again by a reload finds its own). Labels carry model and pool
 * names only: never key ids, group names or request content.
 */
import type { Labels, Counter, Histogram, GaugeCollector, Metrics, MetricsAccess } from '../../contract/metrics.js'
import { familyHeader, histogramLines, labelKey, sampleLine } from '../../../protocols/prometheus/exposition.js'

class CounterMetric implements Counter {
  readonly values = new Map<string, number>()
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  inc(labels: Labels = {}, by = 1): void {
    const key = labelKey(labels)
    this.values.set(key, (this.values.get(key) ?? 0) + by)
  }
  series(labels: Labels): { inc(by?: number): void } {
    const key = labelKey(labels)
    const values = this.values
    if (!values.has(key)) values.set(key, 0)
    return { inc: (by = 1) => void values.set(key, values.get(key)! + by) }
  }
  render(): string {
    const lines = familyHeader(this.name, this.help, 'counter')
    // A counter never incremented still shows 0, so a dashboard sees it exists.
    if (this.values.size === 0) lines.push(sampleLine(this.name, '', 0))
    for (const [key, v] of this.values) lines.push(sampleLine(this.name, key, v))
    return lines.join('\n')
  }
}

class HistogramMetric implements Histogram {
  private readonly bySeries = new Map<string, { counts: number[]; sum: number; count: number }>()
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[],
  ) {}
  observe(labels: Labels, value: number): void {
    this.series(labels).observe(value)
  }
  series(labels: Labels): { observe(value: number): void } {
    const key = labelKey(labels)
    let s = this.bySeries.get(key)
    if (!s) {
      s = { counts: this.buckets.map(() => 0), sum: 0, count: 0 }
      this.bySeries.set(key, s)
    }
    const series = s
    const buckets = this.buckets
    return {
      observe(value: number) {
        for (let i = 0; i < buckets.length; i++) if (value <= buckets[i]!) series.counts[i]!++
        series.sum += value
        series.count++
      },
    }
  }
  render(): string {
    const lines = familyHeader(this.name, this.help, 'histogram')
    for (const [key, s] of this.bySeries) lines.push(...histogramLines(this.name, key, this.buckets, s))
    return lines.join('\n')
  }
}

class GaugeMetric {
  constructor(
    readonly name: string,
    public help: string,
    public collect: GaugeCollector,
    readonly type: 'gauge' | 'counter' = 'gauge',
  ) {}
  render(): string {
    const lines = familyHeader(this.name, this.help, this.type)
    for (const [labels, v] of this.collect()) lines.push(sampleLine(this.name, labelKey(labels), v))
    return lines.join('\n')
  }
}

type Metric = CounterMetric | HistogramMetric | GaugeMetric

export class MetricsRegistry implements Metrics {
  private readonly metrics = new Map<string, Metric>()

  constructor(readonly access: MetricsAccess = { protected: false, adminOnly: true, isMetricsToken: () => false }) {}

  counter(name: string, help: string): Counter {
    return this.get(name, CounterMetric, () => new CounterMetric(name, help))
  }

  histogram(name: string, help: string, buckets: readonly number[]): Histogram {
    return this.get(name, HistogramMetric, () => new HistogramMetric(name, help, buckets))
  }

  gauge(name: string, help: string, collect: GaugeCollector, type: 'gauge' | 'counter' = 'gauge'): void {
    const existing = this.metrics.get(name)
    if (existing instanceof GaugeMetric) {
      existing.collect = collect
      existing.help = help
      return
    }
    this.get(name, GaugeMetric, () => new GaugeMetric(name, help, collect, type))
  }

  collectedCounter(name: string, help: string, collect: GaugeCollector): void {
    this.gauge(name, help, collect, 'counter')
  }

  render(): string {
    return [...this.metrics.values()].map((m) => m.render()).join('\n') + '\n'
  }

  private get<T extends Metric>(name: string, type: abstract new (...args: never[]) => T, make: () => T): T {
    const existing = this.metrics.get(name)
    if (existing) {
      if (!(existing instanceof type)) throw new Error(`metric ${name} is already registered as another type`)
      return existing
    }
    const made = make()
    this.metrics.set(name, made)
    return made
  }
}
