/**
 * A TCP proxy to Redis whose connections can all be cut, and new ones refused, then allowed
 * again: Redis made unreachable for one gateway only, while the shared server keeps serving
 * everyone else.
 */
import net from 'node:net'

export interface CuttableProxy {
  /** A redis:// URL that reaches the target through the proxy. */
  readonly url: string
  cut(): void
  restore(): void
  close(): Promise<void>
}

export async function cuttableProxy(target: URL): Promise<CuttableProxy> {
  const sockets = new Set<net.Socket>()
  let cut = false
  const server = net.createServer((client) => {
    if (cut) return void client.destroy()
    const upstream = net.connect(Number(target.port || 6379), target.hostname)
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('error', () => undefined)
      s.on('close', () => {
        sockets.delete(s)
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `redis://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut() {
      cut = true
      for (const s of sockets) s.destroy()
    },
    restore() {
      cut = false
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
