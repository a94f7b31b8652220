/**
 * An opt-in disk cache of use-lite vectors for the knowledge benches, so that tuning runs do not
 * spend a minute re-embedding the same corpus each time. Set SLUICE_BENCH_EMBEDDINGS to a folder
 * to turn it on; the benches then say how many texts came from the cache, and their "with
 * embedding" ingestion rates count only the texts actually embedded, so quote those rates from a
 * run without the cache. The model is deterministic: a cached vector is the one it would compute.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

export type Embed = (texts: string[]) => Promise<Float32Array[]>

export interface CachedEmbed {
  readonly embed: Embed
  /** Texts served from the cache so far (0 when the cache is off). */
  hits(): number
}

export function cachedEmbed(embed: Embed, model = 'use-lite'): CachedEmbed {
  const dir = process.env.SLUICE_BENCH_EMBEDDINGS
  let hits = 0
  if (!dir) return { embed, hits: () => 0 }
  fs.mkdirSync(dir, { recursive: true })
  const file = (text: string) =>
    path.join(dir, `${crypto.createHash('sha256').update(model).update('\0').update(text).digest('hex')}.f32`)
  return {
    hits: () => hits,
    async embed(texts) {
      const out: (Float32Array | undefined)[] = texts.map((t) => {
        const f = file(t)
        if (!fs.existsSync(f)) return undefined
        const b = fs.readFileSync(f)
        return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))
      })
      hits += out.filter(Boolean).length
      const missing = texts.filter((_, i) => !out[i])
      if (missing.length) {
        const fresh = await embed(missing)
        let j = 0
        texts.forEach((t, i) => {
          if (out[i]) return
          const v = fresh[j++]!
          fs.writeFileSync(file(t), Buffer.from(v.buffer, v.byteOffset, v.byteLength))
          out[i] = v
        })
      }
      return out.map((v) => v!)
    },
  }
}
