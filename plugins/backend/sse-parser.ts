/**
 * Reads server-sent events from a byte stream: yields the `data:` payload of each event.
 * Handles events split across chunks, several events in one chunk, CRLF line ends, and
 * multi-line data (joined with newlines, as the SSE standard says).
 */
export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder()
  let buffer = ''
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true })
    let end: number
    while ((end = eventEnd(buffer)) !== -1) {
      const raw = buffer.slice(0, end)
      buffer = buffer.slice(end).replace(/^(\r?\n){1,2}/, '')
      const data = dataOf(raw)
      if (data !== undefined) yield data
    }
  }
  buffer += decoder.decode()
  const data = dataOf(buffer)
  if (data !== undefined && buffer.trim() !== '') yield data
}

/** Index where the first complete event ends (before its blank line), or -1. */
function eventEnd(buffer: string): number {
  const lf = buffer.indexOf('\n\n')
  const crlf = buffer.indexOf('\r\n\r\n')
  if (lf === -1) return crlf
  if (crlf === -1) return lf
  return Math.min(lf, crlf)
}

function dataOf(raw: string): string | undefined {
  let data: string | undefined
  for (const line of raw.split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue
    const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5)
    data = data === undefined ? value : `${data}\n${value}`
  }
  return data
}
