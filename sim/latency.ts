/**
 * Time to first token and inter-token latency, with llm-d's jitter rule: a sample is Gaussian
 * around its base with the configured fraction as standard deviation, clamped to ±70% of the
 * base. Headers override the base per request, so one test can slow one request down.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { SeededRandom } from './seeded-random.js'

export interface LatencySettings {
  ttft_ms: number
  itl_ms: number
  jitter: number
  prefill_ms_per_token?: number
}

export interface RequestLatency {
  ttftMs: number
  itlMs: number
  jitter: number
  /** Extra wait before the first token (failure injection: `stall`). */
  stallMs: number
  /** Added to the time to first token for each prompt token the prefix cache did not have. */
  prefillMsPerToken: number
}

export function requestLatency(
  settings: LatencySettings,
  headers: IncomingHttpHeaders,
  stallMs: number,
): RequestLatency {
  return {
    ttftMs: headerMs(headers['x-sim-ttft-ms']) ?? settings.ttft_ms,
    itlMs: headerMs(headers['x-sim-itl-ms']) ?? settings.itl_ms,
    jitter: settings.jitter,
    stallMs,
    prefillMsPerToken: settings.prefill_ms_per_token ?? 0,
  }
}

/** A non-negative number of milliseconds from a header, or undefined when absent or malformed. */
export function headerMs(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value
  if (text === undefined || text.trim() === '') return undefined
  const ms = Number(text)
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined
}

/** True when nothing in this request needs a timer: the zero-latency fast path. */
export function isInstant(latency: RequestLatency): boolean {
  return latency.ttftMs === 0 && latency.itlMs === 0 && latency.stallMs === 0 && latency.prefillMsPerToken === 0
}

export function sampleMs(base: number, jitter: number, random: SeededRandom): number {
  if (base <= 0) return 0
  if (jitter <= 0) return base
  const sample = random.gaussian(base, base * jitter)
  return Math.min(base * 1.7, Math.max(base * 0.3, sample))
}
