/**
 * @module cli/commands/api-epoch-revocation
 * `craft api:install --revocation epoch`: the `add_token_epoch_to_users` migration (users'
 * `token_epoch` and `token_epoch_at`), unless the app has one of that name, and
 * `revocation: 'epoch'` in `config/api.ts`'s jwt driver.
 */
import { missingFrameworkMigrations } from '../generator.js'
import { setJwtDriverKey } from '../wiring/file-edits.js'
import { CliError } from '../cli-error.js'

export const TOKEN_EPOCH_MIGRATION = 'add_token_epoch_to_users'

/** `--revocation`: `epoch`, or nothing (the default: no epochs). */
export function revocationOption(value: string | undefined): 'epoch' | null {
  if (value === undefined) return null
  if (value.toLowerCase() !== 'epoch') throw new CliError(`Unknown --revocation "${value}": the only value is epoch.`)
  return 'epoch'
}

/** The token epoch migration, unless the app has one of that name (any timestamp). */
export function tokenEpochMigration(root: string): { path: string; contents: string }[] {
  return missingFrameworkMigrations(root, [TOKEN_EPOCH_MIGRATION])
}

/** Writes `revocation: 'epoch'` into the jwt driver of config/api.ts (first key of `jwt: {`). */
export function setEpochRevocation(configPath: string): 'changed' | 'present' | 'refused' {
  return setJwtDriverKey(configPath, 'revocation', 'epoch', 'null\\b')
}
