/**
 * @module support/logger
 * One line per event: `<ISO time> <LEVEL> <event> <JSON fields>`. Fields named like secrets
 * (password, token, secret, cookie, authorization) are replaced by `[redacted]`, so a log line can
 * never carry a password, a JWT, a reset token or a cookie value.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export type LogSink = (line: string, level: LogLevel) => void

const SECRET = /pass(word)?|token|secret|cookie|authorization|jwt|api_key|session/i
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

export class Logger {
  sink: LogSink
  level: LogLevel

  constructor(options: { sink?: LogSink; level?: LogLevel } = {}) {
    this.sink = options.sink ?? ((line, level) => (level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(line + '\n'))
    this.level = options.level ?? 'info'
  }

  debug(event: string, fields?: Record<string, unknown>): void { this.#write('debug', event, fields) }
  info(event: string, fields?: Record<string, unknown>): void { this.#write('info', event, fields) }
  warn(event: string, fields?: Record<string, unknown>): void { this.#write('warn', event, fields) }
  error(event: string, fields?: Record<string, unknown>): void { this.#write('error', event, fields) }

  #write(level: LogLevel, event: string, fields?: Record<string, unknown>): void {
    if (ORDER[level] < ORDER[this.level]) return
    const safe = fields ? JSON.stringify(redact(fields)) : ''
    this.sink(`${new Date().toISOString()} ${level.toUpperCase()} ${event}${safe ? ' ' + safe : ''}`, level)
  }
}

function redact(value: unknown, depth = 0): unknown {
  if (value instanceof Error) {
    // The cause too (a template error's file and line sit on the InternalError's cause).
    const cause = value.cause !== undefined && depth < 3 ? { cause: redact(value.cause, depth + 1) } : {}
    return { name: value.name, message: value.message, ...(value.stack ? { stack: value.stack } : {}), ...cause }
  }
  if (value === null || typeof value !== 'object' || depth > 4) return value
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[k] = SECRET.test(k) ? '[redacted]' : redact(v, depth + 1)
  return out
}
