/**
 * @module cli/generator
 * What every generator does: render a stub, refuse to overwrite an existing file without
 * `--force`, write it (creating folders), print its path.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { migrationFileName, nextMigrationDate } from '../database/migration-stubs.js'
import { dirname, join, relative, sep } from 'node:path'
import { FRAMEWORK_ROOT } from '../support/framework-root.js'
import { CliError } from './cli-error.js'
import { colors } from './output.js'

export function readStub(name: string): string {
  return readFileSync(`${FRAMEWORK_ROOT}/stubs/${name}`, 'utf8')
}

/** Replaces `{{ key }}` placeholders. */
export function renderStub(name: string, vars: Record<string, string> = {}): string {
  return readStub(name).replace(/\{\{\s*(\w+)\s*\}\}/g, (_, key: string) => {
    if (!(key in vars)) throw new Error(`stub ${name} needs "${key}"`)
    return vars[key]!
  })
}

export interface WriteOptions {
  force?: boolean
  root: string
  out: (line: string) => void
}

/** Checks every target first, so a refused run writes nothing at all. */
export function writeFiles(files: { path: string; contents: string }[], options: WriteOptions): void {
  if (!options.force) {
    const existing = files.filter((f) => existsSync(f.path))
    if (existing.length > 0) {
      throw new CliError(`${existing.map((f) => relative(options.root, f.path)).join(', ')} already exist${existing.length === 1 ? 's' : ''}; use --force to overwrite.`)
    }
  }
  for (const file of files) {
    mkdirSync(dirname(file.path), { recursive: true })
    writeFileSync(file.path, file.contents)
    options.out(`${colors().green('Created')} ${relative(options.root, file.path) || file.path}`)
  }
}

/** `posts` → `Posts`, `add_api_token_users` → `AddApiTokenUsers`. */
export function pascalCase(value: string): string {
  return value
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('')
}

/** Every file under `dir` (recursively), as paths relative to it with `/` separators, sorted; none when it does not exist. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort()
}

/**
 * The framework's migrations `names` (stubs/migrations/<name>.ts) that the app has none of yet
 * (any timestamp), named from the next free timestamp on, one second apart, in the given order.
 */
export function missingFrameworkMigrations(root: string, names: readonly string[]): { path: string; contents: string }[] {
  const folder = `${root}/databases/migrations`
  const existing = existsSync(folder) ? readdirSync(folder) : []
  const date = nextMigrationDate(existing)
  return names
    .filter((name) => !existing.some((f) => f.replace(/\.[a-z]+$/, '').endsWith(`_${name}`)))
    .map((name, i) => ({
      path: `${folder}/${migrationFileName(name, new Date(date.getTime() + i * 1000))}`,
      contents: readStub(`migrations/${name}.ts`),
    }))
}
