/** Prometheus metrics as plugins see them (`kernel.metrics`): counters, histograms and gauges that survive reloads. */
export type Labels = Readonly<Record<string, string>>

export interface Counter {
  inc(labels?: Labels, by?: number): void
  /** The series of one label set, resolved once (for the request path: no per-call label work). */
  series(labels: Labels): { inc(by?: number): void }
}

export interface Histogram {
  observe(labels: Labels, value: number): void
  /** The series of one label set, resolved once (for the request path: no per-call label work). */
  series(labels: Labels): { observe(value: number): void }
}

/** A gauge read when scraped: `collect` returns the current value of each label set. */
export type GaugeCollector = () => Iterable<readonly [Labels, number]>

export interface Metrics {
  counter(name: string, help: string): Counter
  histogram(name: string, help: string, buckets: readonly number[]): Histogram
  /** Registers (or replaces, after a reload) the collector of a gauge. */
  gauge(name: string, help: string, collect: GaugeCollector): void
  /** A counter kept elsewhere (the process's CPU time) and read when scraped. */
  collectedCounter(name: string, help: string, collect: GaugeCollector): void
  /** The exposition text of every metric. */
  render(): string
  /** Who may read the exposition (server.yaml `metrics:`). */
  readonly access: MetricsAccess
}

export interface MetricsAccess {
  /** Whether a scrape must present a bearer token. */
  readonly protected: boolean
  /** Whether the admin key alone is asked for (no metrics token set). */
  readonly adminOnly: boolean
  /** Whether `secret` is the metrics token (constant time). */
  isMetricsToken(secret: string): boolean
}
