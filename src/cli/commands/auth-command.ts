/**
 * @module cli/commands/auth-command
 * `craft auth`: the login, registration, home and password-reset controllers, their templates,
 * the reset e-mail, and the audit log's migration (unless the app already has one). Add `...Auth.routes()` to `routes/web.ts` to serve them.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import type { Command } from 'commander'
import { FRAMEWORK_ROOT } from '../../foundation/application.js'
import { writeFiles } from '../generator.js'
import { migrationFileName, nextMigrationDate } from '../../database/migration-stubs.js'
import type { CliContext } from '../context.js'

const CONTROLLERS = ['LoginController', 'RegisterController', 'HomeController', 'PasswordResetController']
const TEMPLATES = ['base', 'login', 'register', 'home', 'password_reset', 'change_password']

export function authFiles(root: string): { path: string; contents: string }[] {
  const read = (p: string) => readFileSync(`${FRAMEWORK_ROOT}/${p}`, 'utf8')
  return [
    ...CONTROLLERS.map((c) => ({ path: `${root}/app/controllers/auth/${c}.ts`, contents: read(`stubs/auth/controllers/${c}.ts`) })),
    ...TEMPLATES.map((t) => ({ path: `${root}/templates/auth/${t}.html`, contents: read(`templates/auth/${t}.html`) })),
    { path: `${root}/app/mailables/ResetPassword.ts`, contents: read('stubs/auth/mailables/ResetPassword.ts') },
    { path: `${root}/templates/mailables/auth/reset_password.html`, contents: read('templates/mailables/auth/reset_password.html') },
  ]
}

/** Migrations `craft auth` adds when the app has none of that name yet (any timestamp). */
const MIGRATIONS = ['create_auth_events_table']

export function authMigrations(root: string): { path: string; contents: string }[] {
  const folder = `${root}/databases/migrations`
  const existing = existsSync(folder) ? readdirSync(folder) : []
  const date = nextMigrationDate(existing)
  return MIGRATIONS.filter((name) => !existing.some((f) => f.replace(/\.[a-z]+$/, '').endsWith(`_${name}`))).map((name, i) => ({
    path: `${folder}/${migrationFileName(name, new Date(date.getTime() + i * 1000))}`,
    contents: readFileSync(`${FRAMEWORK_ROOT}/stubs/migrations/${name}.ts`, 'utf8'),
  }))
}

export function registerAuthCommand(program: Command, ctx: CliContext): void {
  program
    .command('auth')
    .description('create the login, register, home and password-reset controllers, templates and e-mail, and the auth_events migration')
    .option('--force', 'overwrite existing files')
    .action((opts: { force?: boolean }) => {
      const root = ctx.requireApp()
      writeFiles([...authFiles(root), ...authMigrations(root)], { force: opts.force, root, out: ctx.out })
      ctx.out('Now add the routes to routes/web.ts:  import { Auth } from \'trowel/auth\'  and  ...Auth.routes()  in ROUTES')
    })
}
