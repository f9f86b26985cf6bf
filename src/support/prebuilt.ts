/**
 * @module support/prebuilt
 * Reads a file the package's build wrote out (scripts/build.mjs, under `dist/assets/`) in place of
 * work a process would otherwise do on first use. Each such file starts with a header line saying
 * what it was made from; the caller decides whether that header (and the body) will do.
 */
import { readFileSync } from 'node:fs'

/**
 * The body of the prebuilt file at `path` (everything after its first line) when `accept` takes
 * its header and body, else `undefined`: no file (running from the sources), no header, or one
 * made from other inputs.
 */
export function readPrebuilt(path: string, accept: (header: string, body: string) => boolean): string | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
  const newline = text.indexOf('\n')
  if (newline <= 0) return undefined
  const body = text.slice(newline + 1)
  return accept(text.slice(0, newline), body) ? body : undefined
}
