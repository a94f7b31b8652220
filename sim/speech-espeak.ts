/**
 * espeak-ng as a real local speech engine: the simulator's speech route, with `engine:
 * espeak-ng`, speaks with an actual (robotic, but intelligible) voice. espeak-ng writes a WAV at
 * 22050 Hz to stdout as it speaks; the samples are resampled to 24 kHz on the fly (linear
 * interpolation: plenty for a formant synthesizer) and streamed as they come.
 *
 * Optional: the Debian package `espeak-ng`. Without it a request answers 503.
 */
import { spawn } from 'node:child_process'
import { SimError } from './api-error.js'
import { expressionTags, speechSampleRate } from './synthetic-voice.js'

/** The simulated voices onto espeak-ng's English voice with a variant (f = female, m = male). */
const variants: Record<string, string> = {
  tara: 'en-us+f3',
  leah: 'en-us+f2',
  jess: 'en-us+f4',
  mia: 'en-us+f1',
  zoe: 'en-us+f5',
  leo: 'en-us+m3',
  dan: 'en-us+m2',
  zac: 'en-us+m1',
}

export function espeakVoice(voice: string): string {
  return variants[voice.toLowerCase()] ?? 'en-us'
}

const tags = new RegExp(`<(${expressionTags.join('|')})>`, 'gi')

/** Streaming linear resampler of 16-bit mono samples; positions count input samples from the start. */
class Resampler {
  private position = 0 // where the next output sample falls
  private base = 0 // index of the first sample of the current chunk
  private previous = 0 // the sample just before the current chunk

  constructor(private readonly step: number) {}

  push(input: Int16Array): Buffer {
    const out: number[] = []
    const end = this.base + input.length
    const at = (j: number) => (j < this.base ? this.previous : input[j - this.base]!)
    for (let j = Math.floor(this.position); j + 1 < end; j = Math.floor(this.position)) {
      const frac = this.position - j
      out.push(Math.round(at(j) * (1 - frac) + at(j + 1) * frac))
      this.position += this.step
    }
    if (input.length > 0) this.previous = input[input.length - 1]!
    this.base = end
    const buf = Buffer.alloc(out.length * 2)
    out.forEach((v, k) => buf.writeInt16LE(Math.max(-32768, Math.min(32767, v)), k * 2))
    return buf
  }
}

/** Speaks `text` with espeak-ng; yields 24 kHz s16le PCM as espeak-ng produces it. */
export async function* espeakPcm(
  text: string,
  voice: string,
  speed: number,
  signal: AbortSignal,
): AsyncGenerator<Buffer> {
  const child = spawn(
    'espeak-ng',
    ['--stdout', '-v', espeakVoice(voice), '-s', String(Math.round(165 * speed)), '--stdin'],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  )
  const failed = new Promise<never>((_, reject) =>
    child.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'ENOENT' ? new SimError(503, 'espeak-ng is not installed on this server.') : e),
    ),
  )
  failed.catch(() => undefined)
  const kill = () => child.kill('SIGKILL')
  signal.addEventListener('abort', kill, { once: true })
  child.stdin.on('error', () => undefined)
  child.stdin.end(text.replace(tags, ' '))
  let header: Buffer | undefined = Buffer.alloc(0)
  let resampler: Resampler | undefined
  let odd: Buffer | undefined
  try {
    const chunks = child.stdout[Symbol.asyncIterator]()
    for (;;) {
      const step = await Promise.race([chunks.next(), failed])
      if (step.done) break
      let data = step.value as Buffer
      if (header) {
        header = Buffer.concat([header, data])
        if (header.length < 44) continue
        // espeak-ng writes the canonical 44-byte header; the rate is at byte 24.
        const rate = header.readUInt32LE(24)
        resampler = new Resampler(rate / speechSampleRate)
        data = header.subarray(44)
        header = undefined
      }
      if (odd) {
        data = Buffer.concat([odd, data])
        odd = undefined
      }
      if (data.length % 2 === 1) {
        odd = data.subarray(data.length - 1)
        data = data.subarray(0, data.length - 1)
      }
      const samples = new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length))
      const out = resampler!.push(samples)
      if (out.length > 0) yield out
    }
  } finally {
    signal.removeEventListener('abort', kill)
    if (child.exitCode === null) child.kill('SIGKILL')
  }
}
