/**
 * Who may read /metrics (server.yaml `metrics:`): open when nothing is set; a metrics token
 * (stored as its sha256, or SLUICE_METRICS_TOKEN, the secret itself) lets Prometheus scrape
 * without holding the admin key; the admin key always works once /metrics is protected.
 * Read at start, as the stores' settings are (open-services.ts), and handed to the metrics
 * registry (`kernel.metrics.access`), which the `metrics` plugin asks.
 */
import crypto from 'node:crypto'
import { hashSecret, parseHash } from '../protocols/credentials/secrets.js'
import type { ServerFile } from '../schemas/server.schema.js'
import type { MetricsAccess } from '../kernel/contract/metrics.js'

export function metricsAccess(settings: ServerFile['metrics'], env: NodeJS.ProcessEnv): MetricsAccess {
  const fromEnv = env.SLUICE_METRICS_TOKEN
  const digest = fromEnv ? hashSecret(fromEnv) : settings?.token_hash ? parseHash(settings.token_hash) : undefined
  return {
    protected: digest !== undefined || settings?.require_admin_key === true,
    adminOnly: digest === undefined,
    isMetricsToken: (secret) => digest !== undefined && crypto.timingSafeEqual(hashSecret(secret), digest),
  }
}
