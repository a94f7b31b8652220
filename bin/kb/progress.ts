/**
 * How a load reports as it goes. On a terminal: one bar redrawn in place with `\r` (files
 * done/total, chunks, rate, ETA), with failures printed above it. Anywhere else (a log file,
 * CI): one plain line per file, since `\r` redraws turn into unreadable runs of text there.
 */
export interface FileOutcome {
  sourceName: string
  status: 'loaded' | 'replaced' | 'failed'
  chunks: number
  reason?: string
}

export interface Progress {
  start(total: number): void
  file(outcome: FileOutcome): void
  end(): void
}

interface Out {
  write(text: string): unknown
  columns?: number
}

export function createProgress(out: Out, tty: boolean, now: () => number = Date.now): Progress {
  return tty ? barProgress(out, now) : lineProgress(out)
}

function lineProgress(out: Out): Progress {
  let total = 0
  let done = 0
  return {
    start(n) {
      total = n
    },
    file(o) {
      done++
      const what =
        o.status === 'failed' ? `failed: ${o.reason}` : `${o.status}, ${o.chunks} chunk${o.chunks === 1 ? '' : 's'}`
      out.write(`[${done}/${total}] ${o.sourceName}: ${what}\n`)
    },
    end() {},
  }
}

function barProgress(out: Out, now: () => number): Progress {
  let total = 0
  let done = 0
  let chunks = 0
  let failed = 0
  let started = 0
  const draw = (): void => {
    const elapsed = Math.max((now() - started) / 1000, 0.001)
    const rate = done / elapsed
    const eta = rate > 0 ? (total - done) / rate : Infinity
    const width = 24
    const filled = total === 0 ? width : Math.round((done / total) * width)
    const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} files  ${chunks} chunks  ${rate.toFixed(1)} files/s  ETA ${formatSeconds(eta)}${failed ? `  ${failed} failed` : ''}`
    // Clear to the end of the line: a shorter redraw must not leave the tail of a longer one.
    out.write(`\r${line.slice(0, (out.columns ?? 120) - 1)}\x1b[K`)
  }
  return {
    start(n) {
      total = n
      started = now()
      draw()
    },
    file(o) {
      done++
      chunks += o.chunks
      if (o.status === 'failed') {
        failed++
        out.write(`\r\x1b[K${o.sourceName}: failed: ${o.reason}\n`)
      }
      draw()
    },
    end() {
      out.write('\n')
    },
  }
}

export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '--'
  const t = Math.round(s)
  return t >= 60 ? `${Math.floor(t / 60)}m${String(t % 60).padStart(2, '0')}s` : `${t}s`
}
