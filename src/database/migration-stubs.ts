/**
 * @module database/migration-stubs
 * What `craft migration <name> [--table T | --create T]` and `craft new` write: migration file
 * names (`2024_05_01_093000_add_api_token_users.ts`), class names (`AddApiTokenUsers`), the
 * rendered stubs of `stubs/migrations/`, and the starting migrations of a new app.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FrameworkError } from '../foundation/framework-error.js'
import { FRAMEWORK_ROOT } from '../support/framework-root.js'

/** `stubs/migrations/` of this package. */
const STUBS = join(FRAMEWORK_ROOT, 'stubs', 'migrations')

export interface MigrationStubOptions {
  className: string
  /** The table to alter (`--table`) or, with `create`, to create (`--create`). */
  table?: string
  create?: boolean
}

/** A generated file: its name inside `databases/migrations/` and its text. */
export interface GeneratedMigration {
  fileName: string
  contents: string
}

function readStub(name: string): string {
  return readFileSync(join(STUBS, name), 'utf8')
}

/** The PascalCase class name for a migration name: `add_api_token_users` → `AddApiTokenUsers`. */
export function migrationClassName(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
  const pascal = words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('')
  if (!pascal) throw new FrameworkError('E_INVALID_MIGRATION_NAME', `"${name}" is not a usable migration name; use letters, digits and underscores.`)
  return /^[0-9]/.test(pascal) ? `Migration${pascal}` : pascal
}

/**
 * The file name `YYYY_MM_DD_HHMMSS_<name>.ts`, in UTC. The name is kept as given, except that
 * anything other than letters, digits and underscores becomes `_` (`add-api token` →
 * `add_api_token`).
 */
export function migrationFileName(name: string, date: Date = new Date()): string {
  const pad = (value: number) => String(value).padStart(2, '0')
  const stamp = `${date.getUTCFullYear()}_${pad(date.getUTCMonth() + 1)}_${pad(date.getUTCDate())}_${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}`
  const snake = name
    .split(/[^A-Za-z0-9_]+/)
    .filter(Boolean)
    .join('_')
  if (!/[A-Za-z0-9]/.test(snake)) throw new FrameworkError('E_INVALID_MIGRATION_NAME', `"${name}" is not a usable migration name; use letters, digits and underscores.`)
  return `${stamp}_${snake}.ts`
}

const STAMP = /^(\d{4})_(\d{2})_(\d{2})_(\d{2})(\d{2})(\d{2})_/

/**
 * The name a migration file was made with, without its stamp and extension
 * (`2026_01_02_030405_add_api_token.ts` → `add_api_token`); null for a name without a stamp.
 */
export function migrationName(file: string): string | null {
  const m = STAMP.exec(file)
  return m ? file.slice(m[0].length).replace(/\.[a-z]+$/, '') : null
}

/**
 * The date to stamp a new migration with: `now`, or one second after the latest stamp among
 * `existing` file names when that is not earlier. Migrations run in file-name order, so a
 * migration made in the same second as the ones `craft new` wrote (or with a clock behind them)
 * still runs after them.
 */
export function nextMigrationDate(existing: Iterable<string>, now: Date = new Date()): Date {
  let latest = -Infinity
  for (const name of existing) {
    const m = STAMP.exec(name)
    if (!m) continue
    latest = Math.max(latest, Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!))
  }
  const wholeSecond = Math.floor(now.getTime() / 1000) * 1000
  return wholeSecond > latest ? now : new Date(latest + 1000)
}

/**
 * The text of a new migration: empty `up`/`down` (`blank`), altering `table` (`--table T`), or
 * creating it with an id and timestamps (`--create T`).
 */
export function renderMigrationStub(options: MigrationStubOptions): string {
  const { className, table, create = false } = options
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(className)) {
    throw new FrameworkError('E_INVALID_MIGRATION_NAME', `"${className}" is not a valid class name.`)
  }
  if (table !== undefined && !/^[A-Za-z_][A-Za-z0-9_.]*$/.test(table)) {
    throw new FrameworkError('E_INVALID_MIGRATION_NAME', `"${table}" is not a valid table name; use letters, digits and underscores.`)
  }
  const stub = table === undefined ? 'blank.ts.stub' : create ? 'create.ts.stub' : 'table.ts.stub'
  return readStub(stub)
    .replaceAll('{{ className }}', className)
    .replaceAll('{{ table }}', table ?? '')
}

/**
 * The migrations of a new app, in the order they must run (users first; the others reference
 * it), one second apart so their file names sort in that order.
 */
export function newAppMigrations(date: Date = new Date()): GeneratedMigration[] {
  const names = ['create_users_table', 'create_password_resets_table', 'create_login_tokens_table']
  return names.map((name, index) => ({
    fileName: migrationFileName(name, new Date(date.getTime() + index * 1000)),
    contents: readStub(`${name}.ts`),
  }))
}
