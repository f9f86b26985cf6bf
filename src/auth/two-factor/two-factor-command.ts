/**
 * @module auth/two-factor/two-factor-command
 * `craft two-factor:disable <email>`: the operator's way back in for a user who lost both their
 * authenticator and their recovery codes. Turns TOTP off for the user with that address (the
 * secret, the recovery codes and the trusted devices are deleted, in one transaction), emits
 * `auth:two_factor_disabled` (audited, and mailed to the user when that notice is on), and says
 * what it did. Check who is asking before running it: it removes a factor of the account.
 *
 * `craft two-factor:reencrypt`: after an APP_KEY rotation, writes every TOTP secret that only a key
 * of APP_PREVIOUS_KEYS decrypts again under the new APP_KEY, so the old key can be dropped at once.
 */
import type { Command } from 'commander'
import { CliError } from '../../cli/cli-error.js'
import { requestlessEventBase } from '../../api/personal-tokens/issue.js'
import { connectionOf } from '../../database/app-database.js'
import { decodeAppKey } from '../../http/cookie-jar.js'
import type { CliContext } from '../../cli/context.js'
import type { Application } from '../../foundation/application.js'

/**
 * Resolves once the security notice of this run has been sent or has failed (its log line), or
 * after `timeoutMs`: the notice is sent after the event's turn, and shutting the database down
 * before it would lose the mail and leave its late queries holding the process open.
 */
function noticeSettled(app: Application, timeoutMs = 10_000): Promise<void> {
  const sink = app.log.sink
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer)
      app.log.sink = sink
      resolve()
    }
    const timer = setTimeout(done, timeoutMs)
    app.log.sink = (line, level) => {
      sink(line, level)
      if (line.includes('auth.security_notice_sent') || line.includes('auth.security_notice_failed')) setImmediate(done)
    }
  })
}

export function registerTwoFactorCommand(program: Command, ctx: CliContext): void {
  program
    .command('two-factor:disable')
    .summary("turn off a user's two-factor authentication (lost phone and recovery codes)")
    .description(
      'Turn off TOTP two-factor authentication for the user with that e-mail address: their secret, recovery codes and trusted devices are deleted, ' +
        'auth:two_factor_disabled is written to the audit log and the user is mailed (when GUARDS.notifications.two_factor is on). ' +
        'For a user who lost both their authenticator app and their recovery codes: make sure it is them first. They can set it up again on /account/two-factor. ' +
        'An unknown address exits 1.',
    )
    .argument('<email>', "the user's e-mail address")
    .action(async (email: string) => {
      const app = await ctx.boot('console')
      try {
        const model = app.make('auth').model
        const user = model ? await model.findForAuth(email) : null
        if (!user) throw new CliError(`No user with the address "${email}".`)
        const knex = connectionOf(app)
        if (!(await knex.schema.hasColumn(model.getTable(), 'two_factor_secret'))) {
          throw new CliError('The users table has no two-factor columns yet: run "node craft migrate" (craft auth writes the create_two_factor_tables migration).')
        }
        const wasOn = await app.make('auth.two_factor').disable(user.getKey())
        if (!wasOn) {
          ctx.out(`Two-factor authentication was not on for ${email}; nothing left to turn off.`)
          return
        }
        const mailed = app.make('auth').resolved.notifications.two_factor ? noticeSettled(app) : Promise.resolve()
        app.events.emit('auth:two_factor_disabled', requestlessEventBase(user, 'cli'))
        await mailed
        ctx.out(`Two-factor authentication turned off for ${email}: secret, recovery codes and trusted devices deleted.`)
      } finally {
        await app.shutdown()
      }
    })
}

export function registerTwoFactorReencryptCommand(program: Command, ctx: CliContext): void {
  program
    .command('two-factor:reencrypt')
    .summary('after an APP_KEY rotation, re-encrypt the TOTP secrets made with a previous key')
    .description(
      'Write every TOTP secret that only a key of APP_PREVIOUS_KEYS decrypts again under the current APP_KEY, then print how many were rewritten, ' +
        'already current, and unreadable (no key decrypts them: those users must turn two-factor off and set it up again, e.g. with two-factor:disable). ' +
        'Without it, a secret is rewritten at its user\'s next sign-in with a code; after it, the previous key can be dropped from APP_PREVIOUS_KEYS. ' +
        'Exits 1 when APP_KEY is missing.',
    )
    .action(async () => {
      const app = await ctx.boot('console')
      try {
        // Console mode boots without a key; re-encrypting needs the real one.
        if (decodeAppKey(process.env.APP_KEY ?? '').length < 32) throw new CliError('APP_KEY is missing or shorter than 32 bytes: set the new key (and the old one in APP_PREVIOUS_KEYS) first.')
        const model = app.make('auth').model
        if (!model || !(await connectionOf(app).schema.hasColumn(model.getTable(), 'two_factor_secret'))) {
          throw new CliError('The users table has no two-factor columns yet: run "node craft migrate" (craft auth writes the create_two_factor_tables migration).')
        }
        const counts = await app.make('auth.two_factor').reencryptAll()
        ctx.out(`TOTP secrets: ${counts.rewritten} re-encrypted with APP_KEY, ${counts.current} already current, ${counts.unreadable} unreadable with any key.`)
        if (counts.unreadable > 0) ctx.out('Unreadable secrets belong to a key this app no longer has: those users must set two-factor up again (node craft two-factor:disable <email>).')
      } finally {
        await app.shutdown()
      }
    })
}
