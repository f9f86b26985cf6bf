/**
 * @module cli/commands/auth-command
 * `craft auth`: the login, registration, home and password-reset controllers, their templates
 * and the reset e-mail. Add `...Auth.routes()` to `routes/web.ts` to serve them.
 */
import { readFileSync } from 'node:fs'
import type { Command } from 'commander'
import { FRAMEWORK_ROOT } from '../../foundation/application.js'
import { writeFiles } from '../generator.js'
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

export function registerAuthCommand(program: Command, ctx: CliContext): void {
  program
    .command('auth')
    .description('create the login, register, home and password-reset controllers, templates and e-mail')
    .option('--force', 'overwrite existing files')
    .action((opts: { force?: boolean }) => {
      const root = ctx.requireApp()
      writeFiles(authFiles(root), { force: opts.force, root, out: ctx.out })
      ctx.out('Now add the routes to routes/web.ts:  import { Auth } from \'trowel/auth\'  and  ...Auth.routes()  in ROUTES')
    })
}
