/**
 * @module cli/commands/api-epoch-revocation
 * `craft api:install --revocation epoch`: the `add_token_epoch_to_users` migration (users'
 * `token_epoch` and `token_epoch_at`), unless the app has one of that name, and
 * `revocation: 'epoch'` in `config/api.ts`'s jwt driver.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { FRAMEWORK_ROOT } from '../../foundation/application.js'
import { migrationFileName, nextMigrationDate } from '../../database/migration-stubs.js'
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
  const folder = `${root}/databases/migrations`
  if (!existsSync(folder)) return []
  const existing = readdirSync(folder)
  if (existing.some((f) => f.replace(/\.[a-z]+$/, '').endsWith(`_${TOKEN_EPOCH_MIGRATION}`))) return []
  return [
    {
      path: `${folder}/${migrationFileName(TOKEN_EPOCH_MIGRATION, nextMigrationDate(existing))}`,
      contents: readFileSync(`${FRAMEWORK_ROOT}/stubs/migrations/${TOKEN_EPOCH_MIGRATION}.ts`, 'utf8'),
    },
  ]
}

/** Writes `revocation: 'epoch'` into the jwt driver of config/api.ts (first key of `jwt: {`). */
export function setEpochRevocation(configPath: string): 'changed' | 'present' | 'refused' {
  if (!existsSync(configPath)) return 'refused'
  const source = readFileSync(configPath, 'utf8')
  if (/\brevocation\s*:\s*['"]epoch['"]/.test(source)) return 'present'
  if (/\brevocation\s*:/.test(source)) {
    const replaced = source.replace(/\brevocation\s*:\s*null\b/, "revocation: 'epoch'")
    if (replaced === source) return 'refused'
    writeFileSync(configPath, replaced)
    return 'changed'
  }
  const at = source.search(/\bjwt\s*:\s*\{/)
  if (at === -1) return 'refused'
  const brace = source.indexOf('{', at)
  writeFileSync(configPath, source.slice(0, brace + 1) + " revocation: 'epoch'," + source.slice(brace + 1))
  return 'changed'
}
