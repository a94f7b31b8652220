/**
 * A client of the Query service's WebSocket for tests: the real `ws` client, messages filed by
 * id, and a wait for a request's last message (an error or a `*.done`).
 */
import WebSocket from 'ws'

export type Json = Record<string, any>

export class QueryWsClient {
  readonly messages: Json[] = []
  private listeners = new Set<() => void>()

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.messages.push(JSON.parse(data.toString()) as Json)
      for (const l of this.listeners) l()
    })
  }

  static async open(baseUrl: string, token: string): Promise<QueryWsClient> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/query/v1/ws?access_token=${encodeURIComponent(token)}`)
    const client = new QueryWsClient(ws)
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('error', reject)
    })
    return client
  }

  send(message: object): void {
    this.ws.send(JSON.stringify(message))
  }

  of(id: string): Json[] {
    return this.messages.filter((m) => m.id === id)
  }

  /** The messages of `id` up to its last one: an error, a `response` (a JSON reply) or a `*.done`. */
  async finished(id: string, ms = 20_000): Promise<Json[]> {
    const last = () => this.of(id).find((m) => m.type === 'error' || m.type === 'response' || /\.done$/.test(m.type))
    if (!last()) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no end for ${id}: ${JSON.stringify(this.of(id)).slice(0, 500)}`)), ms)
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

  close(): void {
    this.ws.close()
  }
}
