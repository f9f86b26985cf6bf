/**
 * @module cli/commands/personal-tokens-migration
 * The personal access tokens table's migration: `craft api:install` writes it when the app has
 * none, and `craft token:create` names it when the table is missing. Apart from both commands so
 * that `api:install`, a generator, loads nothing of the database layer.
 */
import { missingFrameworkMigrations } from '../generator.js'

export const PERSONAL_TOKENS_MIGRATION = 'create_personal_access_tokens_table'

/** The personal access tokens migration, unless the app has one of that name (any timestamp). */
export function personalTokensMigration(root: string): { path: string; contents: string }[] {
  return missingFrameworkMigrations(root, [PERSONAL_TOKENS_MIGRATION])
}
