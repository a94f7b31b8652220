/**
 * The kernel's registry of queue load (kernel.load): made once per process, so that what the
 * fair queue reported when it opened stays reported across reloads; readers that find no queue
 * see every pool idle.
 */
import type { PoolLoad, QueueLoad } from '../../contract/load.js'

export class QueueLoadRegistry implements QueueLoad {
  private readonly sources = new Set<() => readonly PoolLoad[]>()

  pools(): readonly PoolLoad[] {
    if (this.sources.size === 1) for (const source of this.sources) return source()
    const out: PoolLoad[] = []
    for (const source of this.sources) out.push(...source())
    return out
  }

  report(source: () => readonly PoolLoad[]): () => void {
    this.sources.add(source)
    return () => void this.sources.delete(source)
  }
}
