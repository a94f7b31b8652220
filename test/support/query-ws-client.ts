/**
 * A client of the Query service's WebSocket for tests: the real `ws` client, messages filed by
 * id, a wait for a request's last message (an error, a `response` or a `*.done`), and how the
 * socket closed.
 */
import WebSocket from 'ws'

export type Json = Record<string, any>

export class QueryWsClient {
  readonly messages: Json[] = []
  readonly closed: Promise<{ code: number; reason: string }>
  private listeners = new Set<() => void>()

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.messages.push(JSON.parse(data.toString()) as Json)
      for (const l of this.listeners) l()
    })
    this.closed = new Promise((resolve) =>
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    )
  }

  /** `token` null: no access_token at all. */
  static async open(
    baseUrl: string,
    token: string | null,
    options: WebSocket.ClientOptions = {},
  ): Promise<QueryWsClient> {
    const ws = new WebSocket(socketUrl(baseUrl, token), options)
    const client = new QueryWsClient(ws)
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('error', reject)
    })
    return client
  }

  send(message: object | string): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message))
  }

  of(id: string | null): Json[] {
    return this.messages.filter((m) => m.id === id)
  }

  /** The messages of `id` up to its last one: an error, a `response` (a JSON reply) or a `*.done`. */
  async finished(id: string | null, ms = 20_000): Promise<Json[]> {
    const last = () => this.of(id).find((m) => m.type === 'error' || m.type === 'response' || /\.done$/.test(m.type))
    if (!last()) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no end for ${id}: ${JSON.stringify(this.of(id)).slice(0, 500)}`)),
          ms,
        )
        const l = () => {
          if (!last()) return
          clearTimeout(timer)
          this.listeners.delete(l)
          resolve()
        }
        this.listeners.add(l)
      })
    }
    return this.of(id)
  }

  /** Waits for the first message of `id`. */
  async firstOf(id: string, ms = 10_000): Promise<void> {
    const start = Date.now()
    while (this.of(id).length === 0) {
      if (Date.now() - start > ms) throw new Error(`nothing for ${id}`)
      await new Promise((r) => setTimeout(r, 5))
    }
  }

  close(): void {
    this.ws.close()
  }
}

/** The socket's address, with the token in the query string as spec 001 rule 1 has it. */
export function socketUrl(baseUrl: string, token: string | null): string {
  return `${baseUrl.replace(/^http/, 'ws')}/query/v1/ws${token === null ? '' : `?access_token=${encodeURIComponent(token)}`}`
}
