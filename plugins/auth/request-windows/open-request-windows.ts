/** The auth step's state: the per-key request windows, in process memory or, with Redis, shared by every replica. */
import type { Kernel } from '../../../kernel/contract/index.js'
import { MemoryRequestWindows, type RequestWindows } from './request-windows.js'

export async function openRequestWindows(kernel: Kernel): Promise<RequestWindows> {
  if (!kernel.redis) return new MemoryRequestWindows()
  // Loaded only with Redis: the embedded default reads no Lua.
  const { RedisRequestWindows } = await import('./redis-request-windows.js')
  return new RedisRequestWindows(kernel.redis.turn, `${kernel.redis.prefix}rpm:`, kernel.log)
}
