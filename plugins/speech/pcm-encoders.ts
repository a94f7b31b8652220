/**
 * Encoding 16-bit mono PCM into mp3, opus (in Ogg) and flac with the reference encoders of each
 * format, run as child processes: LAME (`lame`), opus-tools (`opusenc`) and FLAC (`flac`), the
 * Debian packages `.ci/run` installs (why these: docs/decisions.md). Each reads raw PCM on stdin
 * and writes the encoded file on stdout, so nothing touches the disk.
 */
import { spawn } from 'node:child_process'
import { GatewayError } from '../../kernel/errors.js'

export type EncodedFormat = 'mp3' | 'opus' | 'flac'

export const contentTypes: Record<EncodedFormat | 'wav' | 'pcm', string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/ogg; codecs=opus',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
}

/** The encoder programs, by format (plugin option `encoders` may name other paths). */
export type EncoderCommands = Record<EncodedFormat, string>

function argsFor(format: EncodedFormat, sampleRate: number, pcmBytes: number): string[] {
  switch (format) {
    case 'mp3':
      // -r: raw input; -s takes kHz; mono in, mono out.
      return ['--quiet', '-r', '-s', String(sampleRate / 1000), '--bitwidth', '16', '--signed', '--little-endian', '-m', 'm', '-', '-']
    case 'opus':
      return ['--quiet', '--raw', '--raw-rate', String(sampleRate), '--raw-chan', '1', '--raw-bits', '16', '-', '-']
    case 'flac':
      // --input-size lets flac write the true sample count into STREAMINFO, which it cannot
      // patch afterwards on a pipe; without it decoders see an unknown length.
      return ['--silent', '--force-raw-format', '--endian=little', '--sign=signed', '--channels=1', '--bps=16', `--sample-rate=${sampleRate}`, `--input-size=${pcmBytes}`, '--no-seektable', '--stdout', '-']
  }
}

/** Encodes a whole PCM buffer. The child is killed when `signal` aborts (client gone, time limit). */
export function encodePcm(commands: EncoderCommands, format: EncodedFormat, pcm: Buffer, sampleRate: number, signal: AbortSignal): Promise<Buffer> {
  const command = commands[format]
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const child = spawn(command, argsFor(format, sampleRate, pcm.length), { stdio: ['pipe', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    let err = ''
    const onAbort = () => child.kill('SIGKILL')
    signal.addEventListener('abort', onAbort, { once: true })
    child.stdout.on('data', (c: Buffer) => out.push(c))
    child.stderr.on('data', (c: Buffer) => {
      if (err.length < 2000) err += c.toString()
    })
    child.on('error', (e: NodeJS.ErrnoException) => {
      signal.removeEventListener('abort', onAbort)
      if (e.code === 'ENOENT') reject(new GatewayError(501, `response_format ${format} needs the ${command} encoder, which is not installed on the gateway`, { cause: e }))
      else reject(new GatewayError(500, 'internal error', { code: 'internal', cause: e }))
    })
    child.on('close', (code) => {
      signal.removeEventListener('abort', onAbort)
      if (signal.aborted) return reject(signal.reason)
      if (code !== 0) return reject(new GatewayError(500, 'internal error', { code: 'internal', cause: new Error(`${command} exited with ${code}: ${err.trim()}`) }))
      resolve(Buffer.concat(out))
    })
    // EPIPE when the encoder died early is reported by 'close' with its exit code.
    child.stdin.on('error', () => undefined)
    child.stdin.end(pcm)
  })
}
