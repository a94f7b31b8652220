/** A redis-server of a benchmark's own (no persistence, a free loopback port), stopped at the end. */
import { spawn } from 'node:child_process'
import net from 'node:net'
import { Redis } from 'ioredis'

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port
      s.close(() => resolve(port))
    })
    s.on('error', reject)
  })
}

export async function privateRedis(): Promise<{ url: string; pid: number; stop(): void }> {
  const port = await freePort()
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  )
  const url = `redis://127.0.0.1:${port}`
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 100 })
  probe.on('error', () => undefined)
  for (let i = 0; i < 50; i++) {
    try {
      await probe.connect()
      break
    } catch {
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  probe.disconnect()
  return { url, pid: child.pid!, stop: () => child.kill('SIGTERM') }
}

/** The server's own CPU time so far (INFO cpu: user + system), in µs. */
export async function redisCpuUs(redis: Redis): Promise<number> {
  const text = await redis.info('cpu')
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(text)?.[1] ?? 0)
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6
}
