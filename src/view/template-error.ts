/**
 * @module view/template-error
 * Template failures. With APP_DEBUG on, `TemplateRenderError` names the template file, line and
 * column; otherwise a template failure is a plain `InternalError` (500, nothing leaked), with the
 * original error as its `cause` for the log.
 */
import { relative, isAbsolute } from 'node:path'
import { InternalError } from '../http/errors.js'

export interface TemplateLocation {
  /** The template file (relative to `root` when inside it). */
  file: string
  line?: number
  column?: number
  /** The original message without nunjucks' location prefixes. */
  detail: string
}

export class TemplateRenderError extends InternalError {
  readonly template: string
  readonly line?: number
  readonly column?: number

  constructor(location: TemplateLocation, cause: unknown) {
    const at = location.line === undefined ? '' : ` at line ${location.line}${location.column === undefined ? '' : `, column ${location.column}`}`
    super(`Template error in ${location.file}${at}: ${location.detail}`, { cause })
    this.template = location.file
    this.line = location.line
    this.column = location.column
  }
}

/**
 * Where a nunjucks error happened. Nunjucks prefixes each template level's message with
 * `(path) [Line N, Column M]`; the innermost (last) one with a line is where the error is.
 */
export function locateTemplateError(error: unknown, fallbackFile: string, roots: string[] = []): TemplateLocation {
  const message = error instanceof Error ? error.message : String(error)
  let file = fallbackFile
  let line: number | undefined
  let column: number | undefined
  for (const match of message.matchAll(/\(([^()\n]+)\)(?: \[Line (\d+), Column (\d+)\])?/g)) {
    if (match[1] === 'unknown path') continue
    file = match[1]!
    if (match[2] !== undefined) {
      line = Number(match[2])
      column = Number(match[3])
    }
  }
  const notFound = /^template not found: (.+)$/m.exec(message)
  const lines = message.split('\n').map((l) => l.trim()).filter(Boolean)
  // Nunjucks counts from 1 for parse errors but from 0 for errors raised while rendering (those
  // wrap a JavaScript error: "Error: Unable to call …", "TypeError: …"); it omits a line 0.
  if (line !== undefined && /^[A-Za-z]*Error: /.test(lines.at(-1) ?? '')) {
    line += 1
    if (column !== undefined) column += 1
  }
  let detail = notFound ? `template "${notFound[1]}" not found` : (lines.at(-1) ?? message)
  detail = detail.replace(/^(?:Template render error: )?(?:\([^()\n]+\)(?: \[Line \d+, Column \d+\])?)\s*/, '').replace(/^Error: /, '')
  return { file: displayPath(file, roots), line, column, detail }
}

function displayPath(file: string, roots: string[]): string {
  if (!isAbsolute(file)) return file
  for (const root of roots) {
    const rel = relative(root, file)
    if (rel && !rel.startsWith('..') && !isAbsolute(rel)) return rel
  }
  return file
}
