/**
 * Reads a PNG as the tests need it: the signature, every chunk's CRC (checked against an
 * independent bitwise CRC-32, not the simulator's table), IHDR's size, and the RGB pixels of an
 * 8-bit truecolour image with filter 0 rows (what the simulator writes).
 */
import { inflateSync } from 'node:zlib'

const SIGNATURE = '89504e470d0a1a0a'

function bitwiseCrc32(bytes: Uint8Array): number {
  let c = 0xffffffff
  for (const b of bytes) {
    c ^= b
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1
  }
  return (c ^ 0xffffffff) >>> 0
}

export interface ReadPng {
  width: number
  height: number
  colourType: number
  chunks: string[]
  /** 3 bytes a pixel, rows top to bottom (filter bytes removed). */
  rgb: Buffer
}

export function readPng(file: Buffer): ReadPng {
  if (file.subarray(0, 8).toString('hex') !== SIGNATURE) throw new Error('not a PNG signature')
  let at = 8
  const chunks: string[] = []
  const idat: Buffer[] = []
  let width = 0
  let height = 0
  let colourType = -1
  while (at < file.length) {
    const length = file.readUInt32BE(at)
    const type = file.toString('latin1', at + 4, at + 8)
    const data = file.subarray(at + 8, at + 8 + length)
    const crc = file.readUInt32BE(at + 8 + length)
    if (crc !== bitwiseCrc32(file.subarray(at + 4, at + 8 + length))) throw new Error(`bad CRC in ${type}`)
    chunks.push(type)
    if (type === 'IHDR') {
      width = data.readUInt32BE(0)
      height = data.readUInt32BE(4)
      colourType = data[9]!
    }
    if (type === 'IDAT') idat.push(data)
    at += 12 + length
  }
  const raw = inflateSync(Buffer.concat(idat))
  const stride = width * 3
  const rgb = Buffer.alloc(stride * height)
  for (let y = 0; y < height; y++) {
    if (raw[y * (stride + 1)] !== 0) throw new Error(`row ${y}: filter ${raw[y * (stride + 1)]}`)
    raw.copy(rgb, y * stride, y * (stride + 1) + 1, (y + 1) * (stride + 1))
  }
  return { width, height, colourType, chunks, rgb }
}
