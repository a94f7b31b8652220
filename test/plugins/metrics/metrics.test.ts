import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import metrics from '../../../plugins/metrics/index.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { MetricsRegistry } from '../../../kernel/services/metrics/metrics.js'

const test = suite('plugin metrics')

test('renders the registry as Prometheus text', async () => {
  const registry = new MetricsRegistry()
  registry.counter('sluice_example_total', 'An example.').inc({ model: 'm "1"' }, 3)
  registry.histogram('sluice_example_seconds', 'Times.', [0.1, 1]).observe({ model: 'm' }, 0.5)
  registry.gauge('sluice_example_now', 'Now.', () => [[{ pool: 'p' }, 2]])
  const run = await runPlugin(metrics, {}, { kernel: makeKernel({ services: { metrics: registry } }) })
  assert.is(run.reply?.kind, 'text')
  if (run.reply?.kind !== 'text') return
  assert.is(run.reply.contentType, 'text/plain; version=0.0.4; charset=utf-8')
  const expected = [
    '# HELP sluice_example_total An example.',
    '# TYPE sluice_example_total counter',
    'sluice_example_total{model="m \\"1\\""} 3',
    '# HELP sluice_example_seconds Times.',
    '# TYPE sluice_example_seconds histogram',
    'sluice_example_seconds_bucket{model="m",le="0.1"} 0',
    'sluice_example_seconds_bucket{model="m",le="1"} 1',
    'sluice_example_seconds_bucket{model="m",le="+Inf"} 1',
    'sluice_example_seconds_sum{model="m"} 0.5',
    'sluice_example_seconds_count{model="m"} 1',
    '# HELP sluice_example_now Now.',
    '# TYPE sluice_example_now gauge',
    'sluice_example_now{pool="p"} 2',
    '',
  ].join('\n')
  assert.ok(run.reply.text.includes(expected), run.reply.text)
  assert.match(run.reply.text, /^sluice_records_dropped_total 0$/m, 'counters never incremented show 0')
})

test('a metric asked for again by name is the same metric (a reloaded plugin keeps counting)', () => {
  const registry = new MetricsRegistry()
  registry.counter('c_total', 'c').inc()
  registry.counter('c_total', 'c').inc()
  assert.match(registry.render(), /c_total 2/)
  assert.throws(() => registry.histogram('c_total', 'c', [1]), /already registered/)
})

test.run()
