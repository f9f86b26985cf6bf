/**
 * @module cli/env-file
 * Reads and edits one key of an app's `.env` without touching the other lines.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { parse } from 'dotenv'

export function readEnvFile(path: string): Record<string, string> {
  return existsSync(path) ? parse(readFileSync(path, 'utf8')) : {}
}

export function setEnvValue(path: string, key: string, value: string): void {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : ''
  const line = `${key}=${value}`
  const pattern = new RegExp(`^\\s*(export\\s+)?${key}\\s*=.*$`, 'm')
  const next = pattern.test(text) ? text.replace(pattern, line) : text + (text === '' || text.endsWith('\n') ? '' : '\n') + line + '\n'
  writeFileSync(path, next, { mode: 0o600 })
}
