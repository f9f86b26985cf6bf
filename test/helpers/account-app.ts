/**
 * The set-up most account suites share: a new app with `craft auth` (optionally the JWT API),
 * every budget off (all requests come from 127.0.0.1), extra routes, mails to the log or to a
 * real SMTP peer, migrated and served; then the moves every suite makes (register, log in, turn
 * TOTP on, wait for a mail and read its link).
 */
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { Secret, TOTP } from 'otpauth'
import { newApp, migrate, type TestApp, type Server } from './app-harness.js'
import { Client } from './http-client.js'
import { applyApiSteps, applyAuthSteps, type ApiStepOptions } from './seed-steps.js'
import { budgetsOff } from './auth-config.js'
import { startSmtpPeer, mailText, type SmtpPeer, type ReceivedMail } from './smtp-peer.js'
import { PASSWORD, appDb } from './security-kit.js'
import { ORIGIN } from './soft-authenticator.js'
import { clearOfStepEdge } from './totp-step.js'

export interface AccountAppOptions {
  /** Mails go to a real SMTP peer (and APP_URL is the soft authenticator's origin); else to the log. */
  smtp?: boolean
  /** The JWT API too (true, or the seed's API options). */
  api?: boolean | ApiStepOptions
  /** Route lines put first in routes/web.ts's ROUTES (`Route` is imported when missing). */
  routes?: string
  /** Any other edit, before migrating. */
  edit?: (app: TestApp) => void
}

export interface AccountApp {
  app: TestApp
  server: Server
  db: Knex
  /** With `smtp: true`. */
  smtp: SmtpPeer | undefined
  /** Stops the server and serves again (after an edit of the app's config); `server` is the new one. */
  restart(): Promise<Server>
  /** A new browser registered as `email` (logged in); `verified` marks the address verified. */
  register(email: string, options?: { name?: string; verified?: boolean }): Promise<Client>
  /** A new browser logged in with the password, landing on /home. */
  login(email: string, options?: { password?: string; remember?: boolean }): Promise<Client>
  /** Turns TOTP on from `client` (it confirms the password first); the secret. */
  enrolTotp(client: Client, options?: { ahead?: number }): Promise<string>
  idOf(email: string): Promise<number>
  /** The first `count` mails to `to` with this subject, waited for (10 s at most). */
  waitForMails(to: string, subject: string, count?: number): Promise<ReceivedMail[]>
  close(): Promise<void>
}

/** A TOTP code for `secret`, `ahead` periods of 30 s from now. */
export function totpCode(secret: string, ahead = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + ahead * 30_000 })
}

/** The token of the first link in `mail` that `pattern` (with one group) matches. */
export function linkIn(mail: ReceivedMail, pattern: RegExp): string {
  const token = pattern.exec(mailText(mail.raw))?.[1]
  assert.ok(token, `no link in: ${mailText(mail.raw)}`)
  return token
}

export const subjectOf = (m: ReceivedMail): string => /^Subject: (.*)$/m.exec(m.raw)?.[1]?.trim() ?? ''

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function startAccountApp(options: AccountAppOptions = {}): Promise<AccountApp> {
  const smtp = options.smtp ? await startSmtpPeer() : undefined
  const env: Record<string, string> = smtp ? { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port), APP_URL: ORIGIN } : { MAIL_DRIVER: 'log' }
  const app = await newApp({ env })
  let db: Knex | undefined
  try {
    applyAuthSteps(app)
    if (options.api) applyApiSteps(app, options.api === true ? {} : options.api)
    budgetsOff(app)
    if (options.routes) {
      app.edit('routes/web.ts', (t) => t.replace('export const ROUTES = [', `export const ROUTES = [\n${options.routes}`))
      if (!/import \{[^}]*\bRoute\b/.test(app.read('routes/web.ts'))) app.edit('routes/web.ts', (t) => `import { Route } from 'trowel'\n${t}`)
    }
    options.edit?.(app)
    migrate(app)
    const server = await app.serve()
    db = appDb(app)
    return accountApp(app, server, db, smtp)
  } catch (error) {
    await db?.destroy()
    await app.cleanup()
    await smtp?.close()
    throw error
  }
}

function accountApp(app: TestApp, server: Server, db: Knex, smtp: SmtpPeer | undefined): AccountApp {
  const idOf = async (email: string) => Number((await db('users').where('email', email).first('id')).id)
  const mailsTo = (to: string, subject: string) => (smtp?.messages ?? []).filter((m) => m.to.includes(to) && subjectOf(m) === subject)
  const self: AccountApp = {
    app,
    server,
    db,
    smtp,
    idOf,
    async restart() {
      await self.server.stop()
      self.server = await app.serve()
      return self.server
    },
    async register(email, { name = 'Test User', verified = false } = {}) {
      const client = new Client(self.server.url)
      const r = await client.submit('/register', '/register', { name, email, password: PASSWORD, password_confirmation: PASSWORD })
      assert.equal(r.location, '/home', r.text)
      if (verified) await db('users').where('email', email).update({ email_verified_at: new Date() })
      return client
    },
    async login(email, { password = PASSWORD, remember = false } = {}) {
      const client = new Client(self.server.url)
      const r = await client.submit('/login', '/login', { email, password, ...(remember ? { remember: '1' } : {}) })
      assert.equal(r.location, '/home', r.text.slice(0, 500))
      return client
    },
    async enrolTotp(client, { ahead = 0 } = {}) {
      await client.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
      const page = await client.get('/account/two-factor')
      const secret = /aria-label="Setup key ([A-Z2-7]+)"/.exec(page.text)?.[1]
      assert.ok(secret, page.text)
      // An earlier step's code is one step from refused: not sent across a step's edge.
      if (ahead < 0) await clearOfStepEdge()
      const r = await client.post('/account/two-factor', { __token: client.csrf(), code: totpCode(secret, ahead) }, { accept: 'application/json' })
      assert.equal(r.status, 200, r.text)
      return secret
    },
    async waitForMails(to, subject, count = 1) {
      const deadline = Date.now() + 10_000
      for (;;) {
        const found = mailsTo(to, subject)
        if (found.length >= count) return found
        if (Date.now() > deadline) throw new Error(`expected ${count} "${subject}" mail(s) to ${to}; got: ${(smtp?.messages ?? []).filter((m) => m.to.includes(to)).map(subjectOf).join(' | ')}`)
        await sleep(50)
      }
    },
    async close() {
      await db.destroy()
      await app.cleanup()
      await smtp?.close()
    },
  }
  return self
}
