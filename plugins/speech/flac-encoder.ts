/**
 * FLAC with libFLAC compiled to JavaScript (npm `libflacjs`), compression level 5 (flac's
 * default). Its asm.js build, not its WebAssembly one: that one's loader fetch()es the .wasm by
 * file path, which fails under Node 20 (its global fetch takes no file paths); the asm.js build encodes a minute of speech in
 * about a quarter of a second. The library is loaded once, on first use; each reply gets its
 * own encoder. The sample count is given up front and the frame sizes and MD5 that libFLAC
 * reports at the end are written back into STREAMINFO, as flac does for a file.
 */
import type { StreamMetadata } from 'libflacjs/dist/libflac.js'
import { blockSamples, pause } from './pcm-blocks.js'

/** The library: its CommonJS module, loaded only when first needed. */
const importFlac = async () => (await import('libflacjs/dist/libflac.js')).default
type Flac = Awaited<ReturnType<typeof importFlac>>
let loading: Promise<Flac> | undefined

function loadFlac(): Promise<Flac> {
  loading ??= (async () => {
    const Flac = await importFlac()
    if (!Flac.isReady()) await new Promise<void>((resolve) => Flac.on('ready', () => resolve()))
    return Flac
  })().catch((err: unknown) => {
    loading = undefined
    throw err
  })
  return loading
}

function fail(what: string): Error {
  return new Error(`libFLAC: ${what} failed`)
}

/** Writes what the encoder learned by the end into STREAMINFO (frame sizes, MD5 of the audio). */
function patchStreamInfo(file: Buffer, info: StreamMetadata): void {
  // "fLaC", then a metadata block header whose type (low 7 bits) 0 is STREAMINFO.
  if (file.toString('latin1', 0, 4) !== 'fLaC' || (file[4]! & 0x7f) !== 0 || file.length < 42) return
  file.writeUIntBE(info.min_framesize, 12, 3)
  file.writeUIntBE(info.max_framesize, 15, 3)
  if (/^[0-9a-f]{32}$/.test(info.md5sum)) Buffer.from(info.md5sum, 'hex').copy(file, 26)
}

export async function encodeFlac(samples: Int16Array, sampleRate: number, signal: AbortSignal): Promise<Buffer> {
  const Flac = await loadFlac()
  const encoder = Flac.create_libflac_encoder(sampleRate, 1, 16, 5, samples.length, false, 0)
  if (!encoder) throw fail('create_libflac_encoder')
  const out: Buffer[] = []
  let info: StreamMetadata | undefined
  try {
    const status = Flac.init_encoder_stream(
      encoder,
      (data, bytes) => {
        out.push(Buffer.from(data.subarray(0, bytes))) // a copy: `data` is the library's memory
      },
      (metadata) => {
        info = metadata ?? info
      },
    )
    if (status !== 0) throw fail(`init_encoder_stream (status ${status})`)
    const step = blockSamples(sampleRate)
    const block = new Int32Array(step)
    for (let at = 0; at < samples.length; at += step) {
      if (at > 0) await pause(signal)
      const n = Math.min(step, samples.length - at)
      for (let i = 0; i < n; i++) block[i] = samples[at + i]!
      if (!Flac.FLAC__stream_encoder_process_interleaved(encoder, block, n)) throw fail('process_interleaved')
    }
    signal.throwIfAborted()
    if (!Flac.FLAC__stream_encoder_finish(encoder)) throw fail('finish')
  } finally {
    Flac.FLAC__stream_encoder_delete(encoder)
  }
  const file = Buffer.concat(out)
  if (info) patchStreamInfo(file, info)
  return file
}
