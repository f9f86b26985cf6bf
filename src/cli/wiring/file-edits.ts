/**
 * @module cli/wiring/file-edits
 * Idempotent edits of an app's files, for the commands that wire a feature in (`craft auth`,
 * `craft api:install --wire`): each step says whether it changed the file, found the change
 * already made, or refused because the file no longer has the shape it expects (the manual
 * steps of the docs still work then).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export type EditOutcome = { file: string; result: 'changed' | 'present' } | { file: string; result: 'refused'; why: string }

/** A step: given the file's text, the new text, `null` when it is already done, or a refusal. */
export type Edit = (text: string) => string | null | { refused: string }

/** Applies `edit` to `<root>/<file>`; a missing file is a refusal unless `create` gives its first text. */
export function editFile(root: string, file: string, edit: Edit, options: { create?: string } = {}): EditOutcome {
  const path = join(root, file)
  if (!existsSync(path)) {
    if (options.create === undefined) return { file, result: 'refused', why: `${file} does not exist` }
    writeFileSync(path, options.create)
    return { file, result: 'changed' }
  }
  const text = readFileSync(path, 'utf8')
  const next = edit(text)
  if (next === null || next === text) return { file, result: 'present' }
  if (typeof next !== 'string') return { file, result: 'refused', why: next.refused }
  writeFileSync(path, next)
  return { file, result: 'changed' }
}

/** `line` at the top of `text`, unless `text` already has it. */
export function withImport(text: string, line: string): string {
  return text.split('\n').includes(line) ? text : `${line}\n${text}`
}

/** Inserts `entry` as the first item of the array opened by `opener` (e.g. `export const ROUTES = [`). */
export function insertFirst(text: string, opener: RegExp, entry: string, label: string): string | { refused: string } {
  const match = opener.exec(text)
  if (!match) return { refused: `it has no "${label}" line` }
  const at = match.index + match[0].length
  return `${text.slice(0, at)}\n  ${entry}${text.slice(at)}`
}

/**
 * Sets `key: <value>` in the jwt driver of config/api.ts: present already → `present`; the key
 * with a value matching `replaceable` → replaced; no key → added as the first key of `jwt: {`;
 * anything else (another value, no `jwt: {`, no file) → `refused`, the file left alone.
 */
export function setJwtDriverKey(configPath: string, key: string, value: string, replaceable: string): 'changed' | 'present' | 'refused' {
  if (!existsSync(configPath)) return 'refused'
  const source = readFileSync(configPath, 'utf8')
  const literal = `'${value}'`
  if (new RegExp(`\\b${key}\\s*:\\s*['"]${value}['"]`).test(source)) return 'present'
  if (new RegExp(`\\b${key}\\s*:`).test(source)) {
    const replaced = source.replace(new RegExp(`\\b${key}\\s*:\\s*${replaceable}`), `${key}: ${literal}`)
    if (replaced === source) return 'refused'
    writeFileSync(configPath, replaced)
    return 'changed'
  }
  const at = source.search(/\bjwt\s*:\s*\{/)
  if (at === -1) return 'refused'
  const brace = source.indexOf('{', at)
  writeFileSync(configPath, `${source.slice(0, brace + 1)} ${key}: ${literal},${source.slice(brace + 1)}`)
  return 'changed'
}
