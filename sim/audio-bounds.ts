/**
 * What a recording's header may claim before the simulator believes it. Headers are the client's
 * bytes: a 42-byte FLAC that says "68 billion samples at 1 Hz" would otherwise become a
 * 70-billion-second transcript and take the whole process down. Three checks, each refused with
 * a 400 that says which:
 * - the sample rate lies in the range recorders actually write (8 kHz, telephone speech and the
 *   lowest standard rate of Opus and MPEG-2.5, up to 768 kHz);
 * - the duration fits in the bytes sent at the format's lowest possible bitrate (not a typical
 *   one: pure digital silence in FLAC's largest blocks must still pass);
 * - the duration is at most `maxAudioSeconds`, what a 64 MiB upload holds at Opus' lowest
 *   bitrate with room to spare, which keeps a transcript's size and a slot's work time bounded.
 */
import { SimError } from './api-error.js'

export type AudioFormat = 'wav' | 'flac' | 'ogg' | 'mp3'

export const minSampleRate = 8_000
export const maxSampleRate = 768_000
/** 48 hours: 64 MiB at Opus' 6 kbit/s floor is about 25 hours. */
export const maxAudioSeconds = 48 * 3600

/**
 * The fewest bits a second of each format can take. WAV is PCM, so at least 8 kHz × 8 bits.
 * FLAC: a frame of 65,535 constant samples at 8 kHz fits in about 11 bytes (~11 bit/s). Ogg:
 * a Vorbis packet of 8,192 samples at 8 kHz in about 2 bytes (~16 bit/s); Opus needs more. MP3:
 * every frame is at least 8 kbit/s (the lowest bitrate index of MPEG-2 and 2.5), less a little
 * for frame lengths rounded down to whole bytes (26 bytes for 26.1 ms at 22.05 kHz).
 */
const floorBitsPerSecond: Record<AudioFormat, number> = { wav: 64_000, flac: 10, ogg: 10, mp3: 7_500 }

/** Throws the 400 of a header whose sample rate no recorder writes. */
export function checkSampleRate(rate: number): void {
  if (!(rate >= minSampleRate && rate <= maxSampleRate)) {
    throw new SimError(
      400,
      `Invalid audio file: a sample rate of ${rate} Hz is outside ${minSampleRate} to ${maxSampleRate} Hz.`,
      'file',
    )
  }
}

/** The most seconds `bytes` of `format` can hold: what a length read from a header may not exceed. */
export function mostSecondsIn(format: AudioFormat, bytes: number): number {
  return (bytes * 8) / floorBitsPerSecond[format]
}

/** Returns `seconds` when the file could hold it and it is within the cap; else the 400 that says why. */
export function plausibleSeconds(format: AudioFormat, seconds: number, bytes: number): number {
  if (!Number.isFinite(seconds) || seconds < 0)
    throw new SimError(400, 'Invalid audio file: its header gives no valid length.', 'file')
  if (seconds > mostSecondsIn(format, bytes)) {
    throw new SimError(
      400,
      `Invalid audio file: its header claims ${Math.round(seconds)} s of audio, more than its ${bytes} bytes can hold.`,
      'file',
    )
  }
  if (seconds > maxAudioSeconds) {
    throw new SimError(
      400,
      `Audio file too long: ${Math.round(seconds)} s; the maximum is ${maxAudioSeconds} s (48 hours).`,
      'file',
    )
  }
  return seconds
}
