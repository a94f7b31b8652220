/**
 * mp3 with LAME compiled to WebAssembly (npm `wasm-media-encoders`): constant 64 kb/s, mono.
 * CBR because the stream has no Xing/Info header: a player that reckons the length from the
 * size and the first frame's bitrate is right only for CBR. The WebAssembly module is compiled
 * once, on first use; each reply gets its own small instance (an encoder holds the stream's
 * state, and replies are encoded concurrently).
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import type { WasmMediaEncoder } from 'wasm-media-encoders'
import { blockSamples, pause } from './pcm-blocks.js'

type NewEncoder = () => Promise<WasmMediaEncoder<'audio/mpeg'>>

let loading: Promise<NewEncoder> | undefined

function loadLame(): Promise<NewEncoder> {
  loading ??= (async () => {
    const { createEncoder } = await import('wasm-media-encoders')
    let wasm: Parameters<typeof createEncoder>[1] = await readFile(
      createRequire(import.meta.url).resolve('wasm-media-encoders/wasm/mp3'),
    )
    // Compiled once: this first instance hands back the compiled module, which later ones reuse.
    await createEncoder('audio/mpeg', wasm, (compiled) => {
      wasm = compiled
    })
    return () => createEncoder('audio/mpeg', wasm)
  })().catch((err: unknown) => {
    loading = undefined
    throw err
  })
  return loading
}

export async function encodeMp3(samples: Int16Array, sampleRate: number, signal: AbortSignal): Promise<Buffer> {
  const encoder = await (await loadLame())()
  encoder.configure({ sampleRate, channels: 1, bitrate: 64 })
  const out: Buffer[] = []
  const step = blockSamples(sampleRate)
  for (let at = 0; at < samples.length; at += step) {
    if (at > 0) await pause(signal)
    const block = samples.subarray(at, at + step)
    const floats = new Float32Array(block.length)
    for (let i = 0; i < block.length; i++) floats[i] = block[i]! / 32768
    // What encode() returns is the encoder's own memory: copied before the next call.
    out.push(Buffer.from(encoder.encode([floats])))
  }
  signal.throwIfAborted()
  out.push(Buffer.from(encoder.finalize()))
  return Buffer.concat(out)
}
