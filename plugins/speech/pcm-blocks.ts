/**
 * Feeding PCM to an in-process encoder without holding the event loop: the samples go in
 * blocks of half a second of audio, and between blocks the loop gets a turn (other requests
 * run) and an aborted request (client gone, time limit) stops the work.
 */
import { endianness } from 'node:os'
import { setImmediate as nextTurn } from 'node:timers/promises'

/**
 * The samples of 16-bit little-endian PCM (an odd last byte is dropped): on a little-endian
 * machine a view of the same bytes, or of one aligned copy; elsewhere read sample by sample.
 */
export function pcmSamples(pcm: Buffer): Int16Array {
  const n = pcm.length >> 1
  if (endianness() === 'LE') {
    const aligned = pcm.byteOffset % 2 === 0 ? pcm : new Uint8Array(pcm.subarray(0, n * 2))
    return new Int16Array(aligned.buffer, aligned.byteOffset, n)
  }
  const samples = new Int16Array(n)
  for (let i = 0; i < n; i++) samples[i] = pcm.readInt16LE(i * 2)
  return samples
}

/** How many samples a block holds: half a second at `sampleRate`, a multiple of `multiple`. */
export function blockSamples(sampleRate: number, multiple = 1): number {
  return Math.max(multiple, Math.round(sampleRate / 2 / multiple) * multiple)
}

/** Lets the event loop run, then throws the abort reason if the request is gone. */
export async function pause(signal: AbortSignal): Promise<void> {
  await nextTurn()
  signal.throwIfAborted()
}
