/**
 * The readiness checks: each a cheap round trip with a bounded wait, run in parallel so that
 * the probe answers within the slowest timeout (~2 s) even when everything is gone.
 */
import { request } from 'undici'
import type { Kernel } from '../../kernel/contract/index.js'

export interface CheckResult {
  ok: boolean
  error?: string
}

const BACKEND_TIMEOUT_MS = 2000

async function outcome(work: () => Promise<void>): Promise<CheckResult> {
  try {
    await work()
    return { ok: true }
  } catch (err) {
    return { ok: false, error: (err as Error).message }
  }
}

/** One backend answering `GET /v1/models` (any status below 500) is enough to serve something. */
async function anyBackend(kernel: Kernel): Promise<void> {
  const names = Object.keys(kernel.config.models.backends ?? {})
  if (names.length === 0) throw new Error('no backend is configured')
  const tries = names.map(async (name) => {
    const pool = kernel.backends.get(name)
    const res = await request(`${pool.baseUrl}/v1/models`, {
      dispatcher: pool.dispatcher,
      signal: AbortSignal.timeout(BACKEND_TIMEOUT_MS),
    })
    await res.body.dump()
    if (res.statusCode >= 500) throw new Error(`${name}: status ${res.statusCode}`)
  })
  try {
    await Promise.any(tries)
  } catch (err) {
    const reasons = (err as AggregateError).errors.map((e) => (e as Error).message)
    throw new Error(`no backend answered: ${reasons.join('; ')}`)
  }
}

/** Every check by name; Redis only when the shared state lives there. */
export async function readiness(kernel: Kernel): Promise<Record<string, CheckResult>> {
  const checks: Record<string, () => Promise<void>> = {
    records: () => kernel.records.ping(),
    knowledge: () => kernel.domains.query.knowledge.store.ping(),
    backends: () => anyBackend(kernel),
  }
  const redis = kernel.redis
  if (redis) checks.redis = () => redis.ping()
  // The first start's sample collection: ready once a first query can find it.
  if (kernel.domains.query.sampleSeeding)
    checks.sample_collection = async () => {
      if (kernel.domains.query.sampleSeeding) throw new Error('the sample collection is being ingested (first start)')
    }
  const names = Object.keys(checks)
  const results = await Promise.all(names.map((n) => outcome(checks[n]!)))
  return Object.fromEntries(names.map((n, i) => [n, results[i]!]))
}
