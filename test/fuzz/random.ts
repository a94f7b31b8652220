/**
 * The fuzzer's randomness: the simulator's seeded generator with the few draws the mutators
 * need. Every input is made from a generator of its own, seeded by the run's seed, its door and
 * its number, so one input replays alone and the order requests finish in changes nothing.
 */
import { hashString, SeededRandom } from '../../sim/seeded-random.js'

export class FuzzRandom extends SeededRandom {
  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p
  }

  /** `n` random bytes. */
  bytes(n: number): Buffer {
    const out = Buffer.alloc(n)
    for (let i = 0; i < n; i++) out[i] = this.int(0, 255)
    return out
  }

  /** A length drawn on a log scale between `min` and `max`: small ones often, big ones sometimes. */
  size(min: number, max: number): number {
    const lo = Math.log(Math.max(1, min))
    const hi = Math.log(Math.max(1, max))
    return Math.min(max, Math.max(min, Math.round(Math.exp(lo + this.next() * (hi - lo)))))
  }
}

/** The generator of input `index` of `door` in the run seeded `seed`. */
export function inputRandom(seed: number, door: string, index: number): FuzzRandom {
  return new FuzzRandom(hashString(`${door}#${index}`, seed))
}

/** The run's seed: `FUZZ_SEED` when set (to replay a run), else a fresh one. */
export function fuzzSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.FUZZ_SEED
  if (given !== undefined && given !== '') {
    const n = Number(given)
    if (!Number.isSafeInteger(n) || n < 0)
      throw new Error(`FUZZ_SEED must be a non-negative integer, not ${JSON.stringify(given)}`)
    return n
  }
  return Math.floor(Math.random() * 2 ** 31)
}
