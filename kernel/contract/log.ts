/**
 * Structured logs: one JSON object per line on stderr. Callers pass identifiers and figures,
 * never prompt or reply text, never a key's secret (only its id).
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export type LogFields = Record<string, string | number | boolean | null | undefined>

export interface Logger {
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
  child(fields: LogFields): Logger
}

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

export interface LogSink {
  write(line: string): void
}

export function createLogger(options: { level?: LogLevel; sink?: LogSink; base?: LogFields } = {}): Logger {
  const min = order[options.level ?? (process.env.SLUICE_LOG_LEVEL as LogLevel | undefined) ?? 'info'] ?? order.info
  const sink = options.sink ?? { write: (line: string) => process.stderr.write(line) }
  const base = options.base ?? {}
  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (order[level] < min) return
    sink.write(JSON.stringify({ t: new Date().toISOString(), level, msg, ...base, ...fields }) + '\n')
  }
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger({ level: options.level, sink, base: { ...base, ...fields } }),
  }
}

/** The message of an error cause, for the log: never includes request content. */
export function describeCause(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`
  return String(err)
}

/** A URL as messages show it: without its password. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return '(unparseable url)'
  }
}
