/**
 * vLLM's Prometheus metrics, under vLLM's names and with its `model_name` label, so the
 * gateway's metrics adapter and dashboards can be tried on the simulator. Bucket bounds are
 * vLLM's own.
 */

const ttftBuckets = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560,
]
const itlBuckets = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80]
const requestBuckets = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680]

class Histogram {
  readonly counts: number[]
  sum = 0
  count = 0

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length).fill(0)
  }

  observe(seconds: number): void {
    this.sum += seconds
    this.count++
    for (let i = 0; i < this.bounds.length; i++) {
      if (seconds <= (this.bounds[i] ?? Infinity)) {
        this.counts[i] = (this.counts[i] ?? 0) + 1
        return
      }
    }
  }
}

/** Why a request ended, as vLLM labels `vllm:request_success_total`. */
export type FinishedReason = 'stop' | 'length' | 'abort'

/** The live state a model's gauges read when /metrics is scraped. */
export interface GaugeSource {
  running(): number
  waiting(): number
  kvCacheUsage(): number
}

export class ModelMetrics {
  prefixCacheHits = 0
  prefixCacheQueries = 0
  promptTokens = 0
  generationTokens = 0
  readonly finished: Record<FinishedReason, number> = { stop: 0, length: 0, abort: 0 }
  readonly timeToFirstToken = new Histogram(ttftBuckets)
  readonly interTokenLatency = new Histogram(itlBuckets)
  readonly e2eLatency = new Histogram(requestBuckets)
  readonly queueTime = new Histogram(requestBuckets)

  constructor(
    readonly modelName: string,
    readonly gauges: GaugeSource,
  ) {}
}

interface MetricFamily {
  name: string
  help: string
  type: 'gauge' | 'counter' | 'histogram'
  samples(model: ModelMetrics, labels: string): string[]
}

function labelsOf(model: ModelMetrics): string {
  return `engine="0",model_name="${model.modelName.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
}

function histogramSamples(name: string, labels: string, histogram: Histogram): string[] {
  const lines: string[] = []
  let cumulative = 0
  histogram.bounds.forEach((bound, i) => {
    cumulative += histogram.counts[i] ?? 0
    // Python's client writes whole bounds as "1.0"; scrapers that match `le` as text expect that.
    lines.push(
      `${name}_bucket{${labels},le="${Number.isInteger(bound) ? bound.toFixed(1) : String(bound)}"} ${cumulative}`,
    )
  })
  lines.push(`${name}_bucket{${labels},le="+Inf"} ${histogram.count}`)
  lines.push(`${name}_sum{${labels}} ${histogram.sum}`)
  lines.push(`${name}_count{${labels}} ${histogram.count}`)
  return lines
}

const families: MetricFamily[] = [
  {
    name: 'vllm:num_requests_running',
    help: 'Number of requests in model execution batches.',
    type: 'gauge',
    samples: (m, l) => [`vllm:num_requests_running{${l}} ${m.gauges.running()}`],
  },
  {
    name: 'vllm:num_requests_waiting',
    help: 'Number of requests waiting to be processed.',
    type: 'gauge',
    samples: (m, l) => [`vllm:num_requests_waiting{${l}} ${m.gauges.waiting()}`],
  },
  {
    name: 'vllm:kv_cache_usage_perc',
    help: 'KV-cache usage. 1 means 100 percent usage.',
    type: 'gauge',
    samples: (m, l) => [`vllm:kv_cache_usage_perc{${l}} ${m.gauges.kvCacheUsage()}`],
  },
  {
    name: 'vllm:prefix_cache_queries',
    help: 'Prefix cache queries, in terms of number of queried tokens.',
    type: 'counter',
    samples: (m, l) => [`vllm:prefix_cache_queries_total{${l}} ${m.prefixCacheQueries}`],
  },
  {
    name: 'vllm:prefix_cache_hits',
    help: 'Prefix cache hits, in terms of number of cached tokens.',
    type: 'counter',
    samples: (m, l) => [`vllm:prefix_cache_hits_total{${l}} ${m.prefixCacheHits}`],
  },
  {
    name: 'vllm:prompt_tokens',
    help: 'Number of prefill tokens processed.',
    type: 'counter',
    samples: (m, l) => [`vllm:prompt_tokens_total{${l}} ${m.promptTokens}`],
  },
  {
    name: 'vllm:generation_tokens',
    help: 'Number of generation tokens processed.',
    type: 'counter',
    samples: (m, l) => [`vllm:generation_tokens_total{${l}} ${m.generationTokens}`],
  },
  {
    name: 'vllm:request_success',
    help: 'Count of successfully processed requests.',
    type: 'counter',
    samples: (m, l) =>
      (Object.keys(m.finished) as FinishedReason[]).map(
        (reason) => `vllm:request_success_total{${l},finished_reason="${reason}"} ${m.finished[reason]}`,
      ),
  },
  {
    name: 'vllm:time_to_first_token_seconds',
    help: 'Histogram of time to first token in seconds.',
    type: 'histogram',
    samples: (m, l) => histogramSamples('vllm:time_to_first_token_seconds', l, m.timeToFirstToken),
  },
  {
    name: 'vllm:inter_token_latency_seconds',
    help: 'Histogram of inter-token latency in seconds.',
    type: 'histogram',
    samples: (m, l) => histogramSamples('vllm:inter_token_latency_seconds', l, m.interTokenLatency),
  },
  {
    name: 'vllm:e2e_request_latency_seconds',
    help: 'Histogram of e2e request latency in seconds.',
    type: 'histogram',
    samples: (m, l) => histogramSamples('vllm:e2e_request_latency_seconds', l, m.e2eLatency),
  },
  {
    name: 'vllm:request_queue_time_seconds',
    help: 'Histogram of time spent in WAITING phase for request.',
    type: 'histogram',
    samples: (m, l) => histogramSamples('vllm:request_queue_time_seconds', l, m.queueTime),
  },
]

/** The Prometheus text exposition (format 0.0.4) of every model. */
export function renderMetrics(models: readonly ModelMetrics[]): string {
  const lines: string[] = []
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${family.help}`, `# TYPE ${family.name} ${family.type}`)
    for (const model of models) lines.push(...family.samples(model, labelsOf(model)))
  }
  return `${lines.join('\n')}\n`
}
