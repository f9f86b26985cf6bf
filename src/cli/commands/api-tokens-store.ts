/**
 * @module cli/commands/api-tokens-store
 * `craft api:install --store table`: the `api_tokens` migration (per-device token families),
 * unless the app has one of that name, and `store: 'table'` in `config/api.ts`'s jwt driver.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { FRAMEWORK_ROOT } from '../../foundation/application.js'
import { migrationFileName, nextMigrationDate } from '../../database/migration-stubs.js'
import { CliError } from '../cli-error.js'

export const API_TOKENS_MIGRATION = 'create_api_tokens_table'

/** `--store`: `column` (the default, the user's token column) or `table`. */
export function storeOption(value: string | undefined): 'column' | 'table' {
  if (value === undefined) return 'column'
  const store = value.toLowerCase()
  if (store !== 'column' && store !== 'table') throw new CliError(`Unknown --store "${value}": use column or table.`)
  return store
}

/** The api_tokens migration, unless the app has one of that name (any timestamp). */
export function apiTokensMigration(root: string): { path: string; contents: string }[] {
  const folder = `${root}/databases/migrations`
  if (!existsSync(folder)) return []
  const existing = readdirSync(folder)
  if (existing.some((f) => f.replace(/\.[a-z]+$/, '').endsWith(`_${API_TOKENS_MIGRATION}`))) return []
  return [
    {
      path: `${folder}/${migrationFileName(API_TOKENS_MIGRATION, nextMigrationDate(existing))}`,
      contents: readFileSync(`${FRAMEWORK_ROOT}/stubs/migrations/${API_TOKENS_MIGRATION}.ts`, 'utf8'),
    },
  ]
}

/**
 * Writes `store: 'table'` into the jwt driver of config/api.ts (first key of `jwt: {`). Returns
 * what happened; a file without `jwt: {` is left alone (`refused`).
 */
export function setTableStore(configPath: string): 'changed' | 'present' | 'refused' {
  if (!existsSync(configPath)) return 'refused'
  const source = readFileSync(configPath, 'utf8')
  if (/\bstore\s*:\s*['"]table['"]/.test(source)) return 'present'
  if (/\bstore\s*:/.test(source)) {
    const replaced = source.replace(/\bstore\s*:\s*['"]column['"]/, "store: 'table'")
    if (replaced === source) return 'refused'
    writeFileSync(configPath, replaced)
    return 'changed'
  }
  const at = source.search(/\bjwt\s*:\s*\{/)
  if (at === -1) return 'refused'
  const brace = source.indexOf('{', at)
  writeFileSync(configPath, source.slice(0, brace + 1) + " store: 'table'," + source.slice(brace + 1))
  return 'changed'
}
