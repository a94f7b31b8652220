/**
 * The Ogg container (RFC 3533), writing side: packets laced into pages, each page with its
 * header, granule position, sequence number and CRC. Only what an Ogg Opus file needs: one
 * logical stream, packets that each fit in one page (an Opus packet is at most 3,828 bytes).
 */

/** Ogg's CRC-32: polynomial 0x04c11db7, not reflected, initial value 0, no final xor. */
const crcTable = (() => {
  const t = new Uint32Array(256)
  for (let i = 0; i < 256; i++) {
    let r = i << 24
    for (let bit = 0; bit < 8; bit++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1
    t[i] = r >>> 0
  }
  return t
})()

export function oggCrc(bytes: Uint8Array): number {
  let crc = 0
  for (const b of bytes) crc = ((crc << 8) ^ crcTable[((crc >>> 24) ^ b) & 0xff]!) >>> 0
  return crc
}

const FIRST = 0x02
const LAST = 0x04
const MAX_LACES = 255

/** A packet's lacing values: as many 255s as fit, then the rest (0 when it is a multiple of 255). */
function lacesOf(length: number): number {
  return Math.floor(length / 255) + 1
}

export interface OggPageFields {
  serial: number
  sequence: number
  /** Position after the last packet that ends on this page, in the codec's units. */
  granule: number
  first: boolean
  last: boolean
  packets: readonly Buffer[]
}

export function oggPage(p: OggPageFields): Buffer {
  const lacing: number[] = []
  for (const packet of p.packets) {
    for (let left = packet.length; ; left -= 255) {
      lacing.push(Math.min(left, 255))
      if (left < 255) break
    }
  }
  if (lacing.length > MAX_LACES) throw new Error(`Ogg page of ${lacing.length} lacing values (at most ${MAX_LACES})`)
  const header = Buffer.alloc(27 + lacing.length)
  header.write('OggS', 0, 'latin1')
  header[4] = 0 // stream structure version
  header[5] = (p.first ? FIRST : 0) | (p.last ? LAST : 0) // no 0x01 (continued): packets never span pages
  header.writeBigUInt64LE(BigInt(p.granule), 6)
  header.writeUInt32LE(p.serial >>> 0, 14)
  header.writeUInt32LE(p.sequence, 18)
  header[26] = lacing.length
  Buffer.from(lacing).copy(header, 27)
  const page = Buffer.concat([header, ...p.packets])
  page.writeUInt32LE(oggCrc(page), 22) // computed with the CRC field still zero
  return page
}

/**
 * One logical stream, page by page: header packets each on their own page(s), then data
 * packets gathered into pages of at most `packetsPerPage`, the last page marked as the end.
 */
export class OggStream {
  private sequence = 0
  private pending: Buffer[] = []
  private pendingLaces = 0
  private granule = 0
  readonly pages: Buffer[] = []

  constructor(
    private readonly serial: number,
    private readonly packetsPerPage = 50,
  ) {}

  /** A header packet: alone on its page, at granule position 0. */
  header(packet: Buffer): void {
    this.flush(false)
    this.pending.push(packet)
    this.flush(false)
  }

  /** A data packet; `granule` is the stream's position once it is decoded. */
  packet(packet: Buffer, granule: number): void {
    const laces = lacesOf(packet.length)
    if (laces > MAX_LACES) throw new Error(`Ogg packet of ${packet.length} bytes does not fit in one page`)
    if (this.pending.length >= this.packetsPerPage || this.pendingLaces + laces > MAX_LACES) this.flush(false)
    this.pending.push(packet)
    this.pendingLaces += laces
    this.granule = granule
  }

  /** Writes the last page, whose granule position may be less than its packets' (end trimming). */
  end(granule: number): Buffer {
    this.granule = granule
    this.flush(true)
    return Buffer.concat(this.pages)
  }

  private flush(last: boolean): void {
    if (this.pending.length === 0 && !last) return
    this.pages.push(
      oggPage({
        serial: this.serial,
        sequence: this.sequence++,
        granule: this.granule,
        first: this.sequence === 1,
        last,
        packets: this.pending,
      }),
    )
    this.pending = []
    this.pendingLaces = 0
  }
}
