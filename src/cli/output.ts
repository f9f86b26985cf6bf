/**
 * @module cli/output
 * How craft writes to the terminal:
 * - colour only when the stream is a TTY, and never when `NO_COLOR` is set (https://no-color.org)
 *   or `TERM=dumb`;
 * - `withProgress(label, fn)`: a spinner line on stderr for steps that take over a second, on a
 *   TTY only (logs and pipes stay clean), erased when the step ends;
 * - `formatError(error, appRoot)`: the one line `error: ...` shows, with a tsx/esbuild syntax
 *   error's file, line and message instead of "Transform failed with 1 error:".
 */
import { relative, sep } from 'node:path'
import { DatabaseUnavailableError } from '../database/errors.js'

export interface Stream {
  isTTY?: boolean
  write(chunk: string): unknown
}

export interface Colors {
  enabled: boolean
  red(s: string): string
  green(s: string): string
  yellow(s: string): string
  cyan(s: string): string
  bold(s: string): string
  dim(s: string): string
}

/** True when `stream` should get ANSI colours. */
export function colorEnabled(stream: Stream, environment: NodeJS.ProcessEnv = process.env): boolean {
  if (environment.NO_COLOR !== undefined && environment.NO_COLOR !== '') return false
  if (environment.TERM === 'dumb') return false
  return stream.isTTY === true
}

export function colors(stream: Stream = process.stdout, environment: NodeJS.ProcessEnv = process.env): Colors {
  const enabled = colorEnabled(stream, environment)
  const wrap = (open: number, close: number) => (s: string) => (enabled ? `\x1b[${open}m${s}\x1b[${close}m` : s)
  return {
    enabled,
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
    bold: wrap(1, 22),
    dim: wrap(2, 22),
  }
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

/**
 * Runs `fn`; when it is still running after `delayMs` (default one second) and `stream` is a
 * TTY, shows `⠙ label 1.4s` on one line, updated ten times a second, erased at the end.
 */
export async function withProgress<T>(label: string, fn: () => Promise<T>, options: { stream?: Stream; delayMs?: number } = {}): Promise<T> {
  const stream = options.stream ?? process.stderr
  if (stream.isTTY !== true) return fn()
  const c = colors(stream)
  const started = Date.now()
  let frame = 0
  let shown = false
  let interval: ReturnType<typeof setInterval> | undefined
  const draw = () => {
    shown = true
    const seconds = ((Date.now() - started) / 1000).toFixed(1)
    stream.write(`\r${c.cyan(FRAMES[frame++ % FRAMES.length]!)} ${label} ${c.dim(`${seconds}s`)}\x1b[K`)
  }
  const delay = setTimeout(() => {
    draw()
    interval = setInterval(draw, 100)
    interval.unref?.()
  }, options.delayMs ?? 1000)
  delay.unref?.()
  try {
    return await fn()
  } finally {
    clearTimeout(delay)
    if (interval) clearInterval(interval)
    if (shown) stream.write('\r\x1b[K')
  }
}

/** The single line shown for a failed command. */
export function formatError(error: unknown, appRoot: string | null): string {
  const message = error instanceof Error ? error.message : String(error)
  const lines = message.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '')
  let line = lines[0] ?? 'unknown error'
  // tsx/esbuild: "Could not load routes/web.ts: Transform failed with 1 error:\n/abs/routes/web.ts:3:0: ERROR: Expected ..."
  const transform = /Transform failed with \d+ errors?:$/
  if (transform.test(line) && lines[1]) line = line.replace(transform, '') + lines[1].trim().replace(/: ERROR: /, ': ')
  if (appRoot) line = line.split(appRoot + sep).join('')
  if (error instanceof DatabaseUnavailableError && !/DATABASE_URL|DB_CONNECTION/.test(line)) {
    line += ' (is the database server running? Check DB_CONNECTION and DATABASE_URL in .env or the environment.)'
  }
  return line
}

/** `path` relative to `root` when inside it, as given otherwise. */
export function shortPath(path: string, root: string = process.cwd()): string {
  const rel = relative(root, path)
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel
}
