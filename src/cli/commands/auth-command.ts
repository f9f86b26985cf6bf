/**
 * @module cli/commands/auth-command
 * `craft auth`: the login, registration, home and password-reset controllers, their templates,
 * the reset e-mail, and the audit log's migration (unless the app already has one). Add `...Auth.routes()` to `routes/web.ts` to serve them.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Command } from 'commander'
import { FRAMEWORK_ROOT } from '../../support/framework-root.js'
import { filesUnder, writeFiles, missingFrameworkMigrations } from '../generator.js'
import { colors } from '../output.js'
import { CliError } from '../cli-error.js'
import type { CliContext } from '../context.js'
import { organizationFiles, wireOrganizations } from '../wiring/organizations-wiring.js'
import { authFeatures, type AuthFeatureModule, type FeatureScaffold } from '../../auth/features/index.js'
import { featureMigrations } from '../../auth/features/registry.js'

/** The framework folders `craft auth` copies into the app, where each lands, and the scaffold key naming a feature's files there. */
export const COPIED: { from: string; to: string; key: Exclude<keyof FeatureScaffold, 'migrations'> }[] = [
  { from: 'stubs/auth/controllers', to: 'app/controllers/auth', key: 'controllers' },
  { from: 'stubs/auth/mailables', to: 'app/mailables', key: 'mailables' },
  { from: 'templates/auth', to: 'templates/auth', key: 'templates' },
  { from: 'templates/mailables/auth', to: 'templates/mailables/auth', key: 'mailTemplates' },
]

/**
 * The controllers, templates, e-mails and static files of every auth and account page: each
 * folder's files no feature claims (the login pages, the layout), then each feature's (its
 * module's `scaffold`), of every feature — an app turns a feature on in config/auth.ts later.
 */
export function authFiles(root: string, features: readonly AuthFeatureModule[] = authFeatures()): { path: string; contents: string }[] {
  return COPIED.flatMap(({ from, to, key }) => {
    const claimed = features.flatMap((f) => f.scaffold?.[key] ?? [])
    const core = filesUnder(`${FRAMEWORK_ROOT}/${from}`).filter((file) => !claimed.includes(file))
    return [...core, ...claimed].map((file) => ({ path: `${root}/${to}/${file}`, contents: readFileSync(`${FRAMEWORK_ROOT}/${from}/${file}`, 'utf8') }))
  })
}

/** The core's migrations, in order; the features' follow (their modules' `scaffold.migrations`). */
const CORE_MIGRATIONS = ['create_auth_events_table', 'create_account_tables', 'create_two_factor_tables', 'add_account_recovery_columns']

/** Migrations `craft auth` adds when the app has none of that name yet (any timestamp). */
export function authMigrationNames(features: readonly AuthFeatureModule[] = authFeatures()): string[] {
  return [...CORE_MIGRATIONS, ...featureMigrations(features)]
}

export function authMigrations(root: string): { path: string; contents: string }[] {
  return missingFrameworkMigrations(root, authMigrationNames())
}

/** What `wireAuthRoutes` did to routes/web.ts. */
export type WireResult = 'added' | 'present' | { refused: string }

/**
 * Adds the auth pages to `routes/web.ts`: `import { authRoutes } from 'trowel/auth'` and
 * `...authRoutes(),` as the first entry of ROUTES. Nothing changes when the file already serves
 * them (`Auth.routes()` or `authRoutes()`); a file without `export const ROUTES = [` is left alone.
 * The import uses its own name, so a hand-written `import { Auth } ...` beside it never clashes,
 * and the router treats a second, identical listing of the same routes as one.
 */
export function wireAuthRoutes(root: string): WireResult {
  const file = join(root, 'routes', 'web.ts')
  if (!existsSync(file)) return { refused: 'routes/web.ts does not exist' }
  const text = readFileSync(file, 'utf8')
  if (/\bAuth\.routes\(|\bauthRoutes\(/.test(text)) return 'present'
  const marker = /export const ROUTES(?:\s*:\s*[^=]+)?\s*=\s*\[/
  const match = marker.exec(text)
  if (!match) return { refused: 'routes/web.ts has no "export const ROUTES = [" line' }
  const at = match.index + match[0].length
  const wired = `import { authRoutes } from 'trowel/auth'\n${text.slice(0, at)}\n  ...authRoutes(),${text.slice(at)}`
  writeFileSync(file, wired)
  return 'added'
}

export function registerAuthCommand(program: Command, ctx: CliContext): void {
  program
    .command('auth')
    .description('create the auth and account pages (controllers, templates, e-mails) and their migrations, and add the pages to routes/web.ts')
    .option('--force', 'overwrite existing files')
    .option('--missing', 'add only the files this app lacks (after upgrading trowel), changing none it has')
    .option('--organizations', 'also add organisations: their pages, migration and AuthorizationProvider, and turn the feature on in config/auth.ts')
    .action((opts: { force?: boolean; missing?: boolean; organizations?: boolean }) => {
      const root = ctx.requireApp()
      if (opts.force && opts.missing) throw new CliError('--force and --missing exclude each other: --force overwrites every file, --missing only adds the absent ones.')
      // With --organizations on an app that has its auth pages already, only the absent ones are added beside the organisation files.
      const base = [...authFiles(root), ...authMigrations(root)].filter((f) => !opts.organizations || opts.force || !existsSync(f.path))
      let files = [...base, ...(opts.organizations ? organizationFiles(root) : [])]
      if (opts.missing) {
        files = files.filter((f) => !existsSync(f.path))
        if (files.length === 0) ctx.out('Nothing to add: the app has every auth file and migration.')
      }
      writeFiles(files, { force: opts.force, root, out: ctx.out })
      if (opts.organizations) {
        for (const edit of wireOrganizations(root)) {
          if (edit.result === 'changed') ctx.out(`${colors().green('Updated')} ${edit.file} (organizations)`)
          else if (edit.result === 'refused') ctx.out(`Not changed: ${edit.file}: ${edit.why}. See docs/organizations-and-authorization.md to turn organisations on by hand.`)
        }
      }
      const wired = wireAuthRoutes(root)
      if (wired === 'added') ctx.out(`${colors().green('Updated')} routes/web.ts (...authRoutes() serves the pages)`)
      else if (wired !== 'present') ctx.out(`Not changed: ${wired.refused}. Add the routes by hand:  import { Auth } from 'trowel/auth'  and  ...Auth.routes()  in ROUTES`)
      ctx.out('Then run: node craft migrate')
    })
}
