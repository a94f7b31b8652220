/**
 * The pixels of a simulated image: a pattern drawn from a hash of the prompt, so the same
 * prompt always gives the same picture and different prompts visibly different ones. Two
 * colours from the hash make a diagonal gradient, crossed by concentric rings whose centre and
 * spacing come from the hash too; image `index` of a request (n > 1) shifts the hue, so the
 * images of one request differ from each other but repeat across requests.
 */
import { hashString, SeededRandom } from './seeded-random.js'

function hueToRgb(h: number): [number, number, number] {
  // A fully saturated hue at medium lightness, h in [0, 1).
  const k = (n: number) => (n + h * 12) % 12
  const f = (n: number) => 0.5 - 0.5 * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))
  return [Math.round(f(0) * 255), Math.round(f(8) * 255), Math.round(f(4) * 255)]
}

export function imagePixels(prompt: string, index: number, width: number, height: number, seed: number): Uint8Array {
  const random = new SeededRandom(hashString(prompt, seed))
  const hue = (random.next() + index * 0.38196601) % 1
  const from = hueToRgb(hue)
  const to = hueToRgb((hue + 0.25 + random.next() * 0.5) % 1)
  const cx = random.next() * width
  const cy = random.next() * height
  const ring = 8 + random.next() * 40
  const out = new Uint8Array(width * height * 3)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = (x + y) / (width + height - 2 || 1)
      const d = Math.hypot(x - cx, y - cy)
      const shade = 0.75 + 0.25 * Math.cos((d / ring) * Math.PI)
      const at = (y * width + x) * 3
      for (let c = 0; c < 3; c++) out[at + c] = Math.round((from[c]! * (1 - t) + to[c]! * t) * shade)
    }
  }
  return out
}
