/**
 * @module support/logger
 * One line per event, in one of two formats chosen when the logger is built (`LOG_FORMAT`):
 * - `text` (the default): `<ISO time> <LEVEL> <event> <JSON fields>`;
 * - `json`: one JSON object per line, `{"time":"<ISO>","level":"info","event":"auth.login",...fields}`.
 *   A field named `time`, `level` or `event` is written as `field_time`, `field_level` or
 *   `field_event`, so the line's own keys are never overwritten.
 *
 * In both, fields named like secrets (password, token, secret, cookie, authorization) are replaced
 * by `[redacted]`, so a log line can never carry a password, a JWT, a reset token or a cookie
 * value; errors are written as `{ name, message, stack, cause }`.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export type LogSink = (line: string, level: LogLevel) => void
export type LogFormat = 'text' | 'json'

export interface LoggerOptions {
  /** Receives each line (without its newline). Default: stdout, stderr for `warn` and `error`. */
  sink?: LogSink
  /** Lines below this level are dropped. Default `info`. */
  level?: LogLevel
  /** Default: `LOG_FORMAT` (`text` or `json`), else `text`. */
  format?: LogFormat
}

const SECRET = /pass(word)?|token|secret|cookie|authorization|jwt|api_key|session/i
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }
const FORMATS: readonly string[] = ['text', 'json']

export class Logger {
  sink: LogSink
  level: LogLevel
  readonly format: LogFormat

  constructor(options: LoggerOptions = {}) {
    this.sink = options.sink ?? ((line, level) => (level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(line + '\n'))
    this.level = options.level ?? 'info'
    const wanted = options.format ?? process.env.LOG_FORMAT
    const name = typeof wanted === 'string' ? wanted.trim().toLowerCase() : ''
    this.format = name === 'json' ? 'json' : 'text'
    if (name !== '' && !FORMATS.includes(name)) {
      this.warn('log.format_unknown', { value: String(wanted).slice(0, 64), known: FORMATS.join(', '), using: 'text' })
    }
  }

  debug(event: string, fields?: Record<string, unknown>): void { this.#write('debug', event, fields) }
  info(event: string, fields?: Record<string, unknown>): void { this.#write('info', event, fields) }
  warn(event: string, fields?: Record<string, unknown>): void { this.#write('warn', event, fields) }
  error(event: string, fields?: Record<string, unknown>): void { this.#write('error', event, fields) }

  #write(level: LogLevel, event: string, fields?: Record<string, unknown>): void {
    if (ORDER[level] < ORDER[this.level]) return
    const time = new Date().toISOString()
    if (this.format === 'json') {
      this.sink(JSON.stringify(jsonLine(time, level, event, fields)), level)
      return
    }
    const safe = fields ? JSON.stringify(redact(fields)) : ''
    this.sink(`${time} ${level.toUpperCase()} ${event}${safe ? ' ' + safe : ''}`, level)
  }
}

/** A JSON line's object: its own keys first, then the fields, redacted (`time`, `level`, `event` as `field_<name>`). */
function jsonLine(time: string, level: LogLevel, event: string, fields: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { time, level, event }
  if (fields === undefined || fields === null) return out
  if (typeof fields !== 'object' || Array.isArray(fields) || fields instanceof Error) {
    // Off the type, as the text format writes it: an Error's name, message...; anything else under `fields`.
    const safe = redact(fields)
    if (safe === null || typeof safe !== 'object' || Array.isArray(safe)) return { ...out, fields: safe }
    fields = safe as Record<string, unknown>
  }
  for (const [k, v] of Object.entries(fields)) {
    const key = k === 'time' || k === 'level' || k === 'event' ? `field_${k}` : k
    out[key] = SECRET.test(k) ? '[redacted]' : redact(v, 1)
  }
  return out
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
