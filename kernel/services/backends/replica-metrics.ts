/**
 * Replica state in /metrics, read when scraped (nothing on the request path): outstanding
 * requests and ejected (1 or 0), gauges, and requests sent, a counter, per backend and replica
 * (host:port). Values start again from zero when the configuration is reloaded, as the replica
 * sets are remade (a counter's reset, which Prometheus's rate() expects).
 */
import type { Labels, Metrics } from '../../contract/metrics.js'
import type { ReplicaSet } from './replica-set.js'
import type { Replica } from './replica.js'

export function registerReplicaGauges(metrics: Metrics, sets: () => Iterable<ReplicaSet>): void {
  const collect = (value: (r: Replica) => number) =>
    function* (): Iterable<readonly [Labels, number]> {
      for (const set of sets())
        for (const r of set.replicas) yield [{ backend: set.name, replica: r.label }, value(r)] as const
    }
  metrics.gauge(
    'sluice_backend_replica_outstanding',
    'Requests sent to the replica and not yet ended.',
    collect((r) => r.outstanding),
  )
  metrics.gauge(
    'sluice_backend_replica_ejected',
    '1 while the replica is out (ejected or failing its health check), else 0.',
    collect((r) => (r.serving ? 0 : 1)),
  )
  metrics.collectedCounter(
    'sluice_backend_replica_requests_total',
    'Requests sent to the replica since the configuration was loaded, retries included.',
    collect((r) => r.requests),
  )
}
