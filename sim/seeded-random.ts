/**
 * Deterministic randomness. Replies must be the same for the same prompt (tests and caches rely
 * on it), so every reply draws from a generator seeded by a hash of its prompt; jitter and
 * failure draws use one generator seeded from the config.
 */

/** 53-bit string hash (cyrb53): cheap, well spread, and exact in a JS number. */
export function hashString(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed
  let h2 = 0x41c6ce57 ^ seed
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ ch, 2654435761)
    h2 = Math.imul(h2 ^ ch, 1597334677)
  }
  return finishHash(h1, h2)
}

/** The same hash over a list of numbers (token ids up to 2^53), for prefix-cache block keys. */
export function hashNumbers(values: readonly number[], start: number, end: number, seed: number): number {
  let h1 = 0xdeadbeef ^ (seed | 0)
  let h2 = 0x41c6ce57 ^ Math.floor(seed / 0x100000000)
  for (let i = start; i < end; i++) {
    const value = values[i] ?? 0
    const low = value >>> 0
    const high = Math.floor(value / 0x100000000) >>> 0
    h1 = Math.imul(h1 ^ low, 2654435761)
    h2 = Math.imul(h2 ^ low, 1597334677)
    h1 = Math.imul(h1 ^ high, 2246822507)
    h2 = Math.imul(h2 ^ high, 3266489909)
  }
  return finishHash(h1, h2)
}

function finishHash(a: number, b: number): number {
  let h1 = a
  let h2 = b
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507)
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507)
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return 4294967296 * (2097151 & h2) + (h1 >>> 0)
}

/** mulberry32: a tiny, fast generator; quality is ample for simulated text and timings. */
export class SeededRandom {
  private state: number

  constructor(seed: number) {
    this.state = (seed ^ Math.floor(seed / 0x100000000)) >>> 0
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** Uniform integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  /** Normal distribution (Box–Muller). */
  gaussian(mean: number, sd: number): number {
    const u = 1 - this.next()
    const v = this.next()
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)]
    if (item === undefined) throw new Error('pick from an empty list')
    return item
  }

  /** Lower-case hex digits, for ids that look like the real ones. */
  hex(length: number): string {
    let out = ''
    while (out.length < length)
      out += Math.floor(this.next() * 0x10000)
        .toString(16)
        .padStart(4, '0')
    return out.slice(0, length)
  }
}
