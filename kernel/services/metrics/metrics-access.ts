/**
 * Who may read /metrics (server.yaml `metrics:`): open when nothing is set; a metrics token
 * (stored as its sha256, or SLUICE_METRICS_TOKEN, the secret itself) lets Prometheus scrape
 * without holding the admin key; the admin key always works once /metrics is protected.
 * Read at start.
 */
import crypto from 'node:crypto'
import type { ServerFile } from '../../../schemas/server.schema.js'
import type { MetricsAccess } from '../../contract/metrics.js'

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest()

export function metricsAccess(settings: ServerFile['metrics'], env: NodeJS.ProcessEnv): MetricsAccess {
  const fromEnv = env.SLUICE_METRICS_TOKEN
  const digest = fromEnv
    ? sha256(fromEnv)
    : settings?.token_hash
      ? Buffer.from(settings.token_hash.slice('sha256:'.length), 'hex')
      : undefined
  return {
    protected: digest !== undefined || settings?.require_admin_key === true,
    adminOnly: digest === undefined,
    isMetricsToken: (secret) => digest !== undefined && crypto.timingSafeEqual(sha256(secret), digest),
  }
}
