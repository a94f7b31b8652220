/**
 * The arithmetic of a verdict: from the first token's top logprobs to a distribution over the
 * answers, the most probable answer, a confidence and (for scores) an expected value.
 *
 *   mass_i      = Σ exp(logprob) over the top-20 tokens that are variants of answer i's label
 *   valid       = min(1, Σ_i mass_i)                — probability the model put on any label
 *   p_i         = mass_i / Σ_j mass_j               — exactly 0 for an answer outside the top 20
 *   H           = −Σ_i p_i ln p_i                   — entropy (0 ln 0 = 0)
 *   confidence  = valid × (1 − H / ln n)            — n = number of answers (≥ 2)
 *   expected    = Σ_i (i + 1) p_i                   — score questions, levels counted from 1
 *
 * A uniform distribution has H = ln n, so confidence 0 whatever `valid` is; a decisive model
 * (one answer has all of p) with all of its probability on labels (valid = 1) gets exactly 1.
 */
import type { LabelReader } from './labels.js'

export interface TokenLogprob {
  readonly token: string
  readonly logprob: number
}

/** Probability mass per answer, variants of one label added together. */
export function labelMass(candidates: readonly TokenLogprob[], reader: LabelReader): number[] {
  const mass = new Array<number>(reader.labels.length).fill(0)
  const seen = new Set<string>()
  for (const { token, logprob } of candidates) {
    // The chosen token is listed again among the top logprobs; count each token once.
    if (seen.has(token)) continue
    seen.add(token)
    const answer = reader.answerOf(token)
    // vLLM sends -inf as -9999.0, which exp() turns into 0 anyway.
    if (answer !== undefined && Number.isFinite(logprob)) mass[answer]! += Math.exp(logprob)
  }
  return mass
}

export interface Scored {
  /** One per answer, in answer order; sums to 1. */
  readonly probabilities: number[]
  /** Index of the most probable answer (the earlier answer on a tie). */
  readonly best: number
  readonly confidence: number
  /** The probability the model put on any label at all. */
  readonly validMass: number
}

/** Scores a question from its label masses; undefined when no label was among the top tokens. */
export function scoreMass(mass: readonly number[]): Scored | undefined {
  const total = mass.reduce((sum, m) => sum + m, 0)
  if (!(total > 0)) return undefined
  const probabilities = mass.map((m) => m / total)
  let best = 0
  for (let i = 1; i < probabilities.length; i++) if (probabilities[i]! > probabilities[best]!) best = i
  const validMass = Math.min(1, total)
  return { probabilities, best, confidence: confidenceOf(probabilities, validMass), validMass }
}

/** valid × (1 − H/ln n), clamped to [0, 1] against rounding. */
export function confidenceOf(probabilities: readonly number[], validMass: number): number {
  const n = probabilities.length
  if (n < 2) return validMass
  let entropy = 0
  for (const p of probabilities) if (p > 0) entropy -= p * Math.log(p)
  // A uniform distribution's entropy equals ln n only up to rounding; snap it, so that
  // "uniform" reads as exactly 0 rather than 1e-16.
  const ratio = entropy / Math.log(n)
  const decisiveness = Math.abs(1 - ratio) < 1e-12 ? 0 : 1 - ratio
  return Math.min(1, Math.max(0, validMass * decisiveness))
}

/** The probability-weighted level, counting levels from 1. */
export function expectedLevel(probabilities: readonly number[]): number {
  return probabilities.reduce((sum, p, i) => sum + (i + 1) * p, 0)
}
