/**
 * How large a PDF's compressed streams become once inflated, counted before PDF.js decodes
 * them: a 1 MB file can inflate to gigabytes of page content (deflate reaches ~1,000:1 on a
 * repeated byte), and PDF.js holds what it inflates in buffers outside the reader's heap limit.
 * Each FlateDecode stream is inflated once here, counted and thrown away, and the count stops
 * at the limit. Image streams are skipped: text extraction never decodes them.
 */
import zlib from 'node:zlib'

const STREAM = Buffer.from('stream')
const END = Buffer.from('endstream')

/** Total inflated bytes of the FlateDecode streams, or the first count above `stopAbove`. */
export async function inflatedBytes(pdf: Uint8Array, stopAbove: number): Promise<number> {
  const buf = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength)
  let total = 0
  let at = 0
  for (;;) {
    const kw = buf.indexOf(STREAM, at)
    if (kw < 0) return total
    at = kw + STREAM.length
    if (kw >= 3 && buf.toString('latin1', kw - 3, kw) === 'end') continue
    // The stream's dictionary sits between the object header and the keyword.
    const head = buf.toString('latin1', Math.max(0, kw - 2048), kw)
    const dict = head.slice(head.lastIndexOf(' obj') + 1)
    if (!/\/(FlateDecode|Fl)\b/.test(dict) || /\/Subtype\s*\/Image\b/.test(dict)) continue
    let start = at
    if (buf[start] === 13) start++
    if (buf[start] === 10) start++
    const end = buf.indexOf(END, start)
    if (end < 0) return total
    at = end + END.length
    total += await inflatedSize(buf.subarray(start, end), stopAbove - total)
    if (total > stopAbove) return total
  }
}

/** Bytes `data` inflates to, counted chunk by chunk and not kept; stops past `budget`. */
function inflatedSize(data: Buffer, budget: number): Promise<number> {
  return new Promise((resolve) => {
    let size = 0
    const inflate = zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH })
    inflate.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > budget) {
        inflate.destroy()
        resolve(size)
      }
    })
    // A damaged stream counts for what it gave; PDF.js decides what to make of it.
    inflate.on('error', () => resolve(size))
    inflate.on('end', () => resolve(size))
    inflate.on('close', () => resolve(size))
    inflate.end(data)
  })
}
