/**
 * @module cli/commands/api-tokens-store
 * `craft api:install --store table`: the `api_tokens` migration (per-device token families),
 * unless the app has one of that name, and `store: 'table'` in `config/api.ts`'s jwt driver.
 */
import { missingFrameworkMigrations } from '../generator.js'
import { setJwtDriverKey } from '../wiring/file-edits.js'
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
  return missingFrameworkMigrations(root, [API_TOKENS_MIGRATION])
}

/**
 * Writes `store: 'table'` into the jwt driver of config/api.ts (first key of `jwt: {`). Returns
 * what happened; a file without `jwt: {` is left alone (`refused`).
 */
export function setTableStore(configPath: string): 'changed' | 'present' | 'refused' {
  return setJwtDriverKey(configPath, 'store', 'table', `['"]column['"]`)
}
