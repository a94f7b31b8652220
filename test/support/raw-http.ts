/** A request written as raw bytes on a connection of its own; the raw response, read until the server closes. */
import net from 'node:net'

export function rawHttp(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')))
    socket.on('error', reject)
    socket.write(request)
  })
}
