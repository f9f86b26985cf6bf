/**
 * @module cli/commands/api-epoch-revocation
 * Token epochs, the default of a new `config/api.ts`: the `add_token_epoch_to_users` migration
 * (users' `token_epoch` and `token_epoch_at`), unless the app has one of that name, and
 * `revocation: 'epoch'` in `config/api.ts`'s jwt driver (`--revocation epoch` adds it to an
 * existing one; `--revocation none` writes a new one without it).
 */
import { missingFrameworkMigrations } from '../generator.js'
import { setJwtDriverKey } from '../wiring/file-edits.js'
import { CliError } from '../cli-error.js'

export const TOKEN_EPOCH_MIGRATION = 'add_token_epoch_to_users'

/**
 * `--revocation`: `epoch` (also turned on in an existing config/api.ts), `none` (a new
 * config/api.ts without it), or nothing (a new config/api.ts has it, an existing one is kept).
 */
export function revocationOption(value: string | undefined): 'epoch' | 'none' | null {
  if (value === undefined) return null
  const lower = value.toLowerCase()
  if (lower !== 'epoch' && lower !== 'none') throw new CliError(`Unknown --revocation "${value}": use epoch or none.`)
  return lower
}

/** The generated config/api.ts without `revocation: 'epoch'` (`--revocation none`). */
export function withoutEpochRevocation(source: string): string {
  const setting = ", revocation: 'epoch'"
  if (!source.includes(setting)) throw new Error(`stubs/api/api.ts.stub no longer contains ${setting}`)
  return source.replace(setting, '').replace(/\n {2}\/\*\*\n {3}\* With revocation set to 'epoch'[\s\S]*?\*\/\n/, '\n')
}

/** The token epoch migration, unless the app has one of that name (any timestamp). */
export function tokenEpochMigration(root: string): { path: string; contents: string }[] {
  return missingFrameworkMigrations(root, [TOKEN_EPOCH_MIGRATION])
}

/** Writes `revocation: 'epoch'` into the jwt driver of config/api.ts (first key of `jwt: {`). */
export function setEpochRevocation(configPath: string): 'changed' | 'present' | 'refused' {
  return setJwtDriverKey(configPath, 'revocation', 'epoch', 'null\\b')
}
