/**
 * A multipart/form-data parser over a body already read whole (within its limit). Part data
 * are views into the body, never copies, so a 64 MiB upload costs 64 MiB once. The boundary
 * scan is Buffer.indexOf, which is native and fast.
 */

export interface FormPart {
  readonly name: string
  /** Present on file parts. */
  readonly filename?: string
  readonly contentType?: string
  readonly data: Buffer
}

export class MultipartError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'MultipartError'
  }
}

/** The boundary of a `multipart/form-data; boundary=…` content type, or undefined. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\s*(;|$)/i.test(contentType)) return undefined
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType)
  return m ? (m[1] ?? m[2]) : undefined
}

/** `form-data; name="file"; filename="a.wav"` → its parameters (lower-case keys). */
function dispositionParams(value: string): Record<string, string> {
  const out: Record<string, string> = {}
  const re = /;\s*([A-Za-z0-9_*-]+)=(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g
  for (let m = re.exec(value); m; m = re.exec(value)) out[m[1]!.toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!.trim()
  return out
}

const CRLF = Buffer.from('\r\n')
const HEADER_END = Buffer.from('\r\n\r\n')

export function parseMultipart(body: Buffer, boundary: string): FormPart[] {
  const delimiter = Buffer.from(`--${boundary}`)
  const between = Buffer.from(`\r\n--${boundary}`)
  const parts: FormPart[] = []
  let at = body.indexOf(delimiter)
  if (at === -1) throw new MultipartError('the multipart body has no boundary line')
  at += delimiter.length
  for (;;) {
    // After a delimiter: "--" closes the form; else a line break and the part's headers.
    if (body[at] === 0x2d && body[at + 1] === 0x2d) return parts
    if (body.indexOf(CRLF, at) !== at) throw new MultipartError('malformed multipart boundary line')
    const headerEnd = body.indexOf(HEADER_END, at)
    if (headerEnd === -1) throw new MultipartError('a multipart part has no end of headers')
    const headers = new Map<string, string>()
    for (const line of body.toString('utf8', at + 2, headerEnd).split('\r\n')) {
      const colon = line.indexOf(':')
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
    }
    const dataStart = headerEnd + HEADER_END.length
    const dataEnd = body.indexOf(between, dataStart)
    if (dataEnd === -1) throw new MultipartError('the multipart body ends before its closing boundary')
    const params = dispositionParams(headers.get('content-disposition') ?? '')
    if (params.name === undefined) throw new MultipartError('a multipart part has no name')
    parts.push({ name: params.name, filename: params.filename, contentType: headers.get('content-type'), data: body.subarray(dataStart, dataEnd) })
    at = dataEnd + between.length
  }
}
