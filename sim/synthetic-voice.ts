/**
 * A synthetic voice: real 24 kHz 16-bit audio that sounds like speech from far away. Each
 * character becomes a short sound: vowels are two formants excited at the voice's pitch (the
 * cheapest formant synthesis there is), hissing consonants are noise, stops a burst, the rest
 * a low voiced hum; spaces are short and punctuation long pauses. The inline expression tags of
 * Orpheus (`<laugh>`, `<sigh>` …) become sounds of their own. Deterministic for a text and voice.
 *
 * The length is known before the first sample (what a duration check in a test relies on):
 * `ms_per_char` per character, three times that for punctuation, 400 ms per tag.
 */
import { hashString, SeededRandom } from './seeded-random.js'

export const speechSampleRate = 24000

type Sound =
  | { kind: 'vowel'; f1: number; f2: number }
  | { kind: 'noise' }
  | { kind: 'stop' }
  | { kind: 'hum' }
  | { kind: 'silence' }
  | { kind: 'tag'; name: string }

interface Unit {
  sound: Sound
  samples: number
}

const vowels: Record<string, [number, number]> = {
  a: [730, 1090],
  e: [530, 1840],
  i: [270, 2290],
  o: [570, 840],
  u: [300, 870],
  y: [400, 2000],
}

/** The expression tags of the spec (and Orpheus); `<giggle>` is fal's extra. */
export const expressionTags = [
  'laugh',
  'chuckle',
  'sigh',
  'cough',
  'sniffle',
  'groan',
  'yawn',
  'gasp',
  'giggle',
] as const
const tagPattern = new RegExp(`<(${expressionTags.join('|')})>`, 'gi')

function soundOf(ch: string): Sound {
  const c = ch.toLowerCase()
  const v = vowels[c]
  if (v) return { kind: 'vowel', f1: v[0], f2: v[1] }
  if (/[0-9]/.test(c)) return { kind: 'vowel', f1: 570, f2: 840 }
  if ('sfhxzcç'.includes(c)) return { kind: 'noise' }
  if ('ptkbdgq'.includes(c)) return { kind: 'stop' }
  if (/\p{L}/u.test(c)) return { kind: 'hum' }
  return { kind: 'silence' }
}

function plan(text: string, msPerChar: number): Unit[] {
  const perChar = Math.max(1, Math.round((speechSampleRate * msPerChar) / 1000))
  const units: Unit[] = []
  let last = 0
  const addText = (part: string) => {
    for (const ch of part) {
      const pause = /[.,!?;:…]/.test(ch)
      units.push({ sound: pause ? { kind: 'silence' } : soundOf(ch), samples: pause ? perChar * 3 : perChar })
    }
  }
  for (const m of text.matchAll(tagPattern)) {
    addText(text.slice(last, m.index))
    units.push({ sound: { kind: 'tag', name: m[1]!.toLowerCase() }, samples: Math.round(speechSampleRate * 0.4) })
    last = (m.index ?? 0) + m[0].length
  }
  addText(text.slice(last))
  return units
}

/** Samples of speech for a text, without making them: what a whole-file duration needs. */
export function speechSamples(text: string, msPerChar: number): number {
  return plan(text, msPerChar).reduce((sum, u) => sum + u.samples, 0)
}

export class SyntheticSpeech {
  readonly totalSamples: number
  private readonly units: Unit[]
  private readonly pitch: number
  private readonly random: SeededRandom
  private unit = 0
  private inUnit = 0
  private produced = 0

  constructor(text: string, voice: string, msPerChar: number, seed: number) {
    this.units = plan(text, msPerChar)
    this.totalSamples = this.units.reduce((sum, u) => sum + u.samples, 0)
    // Each voice its own pitch, from a low 95 Hz to a high 235 Hz.
    this.pitch = 95 + (hashString(voice.toLowerCase(), 7) % 141)
    this.random = new SeededRandom(hashString(`${voice}\n${text}`, seed))
  }

  get remaining(): number {
    return this.totalSamples - this.produced
  }

  /** The next `count` samples (fewer at the end) as s16le bytes. */
  next(count: number): Buffer {
    const n = Math.min(count, this.remaining)
    const out = Buffer.alloc(n * 2)
    for (let i = 0; i < n; i++) {
      let u = this.units[this.unit]!
      if (this.inUnit >= u.samples) {
        this.unit++
        this.inUnit = 0
        u = this.units[this.unit]!
      }
      const value = this.sample(u, this.inUnit, this.produced)
      out.writeInt16LE(Math.max(-32767, Math.min(32767, Math.round(value * 32767))), i * 2)
      this.inUnit++
      this.produced++
    }
    return out
  }

  private sample(u: Unit, k: number, n: number): number {
    const t = n / speechSampleRate
    // 5 ms raised-cosine edges, so units join without clicks.
    const edge = Math.min(120, u.samples / 2)
    const fade =
      k < edge
        ? 0.5 - 0.5 * Math.cos((Math.PI * k) / edge)
        : k > u.samples - edge
          ? 0.5 - 0.5 * Math.cos((Math.PI * (u.samples - k)) / edge)
          : 1
    const phase = (t * this.pitch) % 1
    const pulse = Math.exp(-phase * 6) // one decaying excitation per pitch period
    const s = u.sound
    let v: number
    switch (s.kind) {
      case 'vowel':
        v = pulse * (0.6 * Math.sin(2 * Math.PI * s.f1 * t) + 0.4 * Math.sin(2 * Math.PI * s.f2 * t))
        break
      case 'noise':
        v = 0.25 * (this.random.next() * 2 - 1)
        break
      case 'stop':
        v = k < u.samples * 0.25 ? 0.4 * (this.random.next() * 2 - 1) : 0
        break
      case 'hum':
        v = pulse * 0.5 * Math.sin(2 * Math.PI * 250 * t)
        break
      case 'silence':
        v = 0
        break
      case 'tag': {
        // A laugh is voiced bursts at 5 Hz; the other tags breathy noise with a slow swell.
        const beat =
          s.name === 'laugh' || s.name === 'chuckle' || s.name === 'giggle'
            ? Math.max(0, Math.sin(2 * Math.PI * 5 * (k / speechSampleRate)))
            : Math.sin((Math.PI * k) / u.samples)
        v = beat * (0.5 * pulse * Math.sin(2 * Math.PI * 700 * t) + 0.15 * (this.random.next() * 2 - 1))
        break
      }
    }
    return 0.45 * fade * v
  }
}
