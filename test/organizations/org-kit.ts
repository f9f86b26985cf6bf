/**
 * Helpers of the organisation suites: a generated app with `craft auth --organizations` (and the
 * JWT API), users registered and verified, and the forms posted with their CSRF token.
 */
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { newApp, migrate, type Server, type TestApp } from '../helpers/app-harness.js'
import { Client, type HttpResult } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff } from '../helpers/auth-config.js'
import { appDb, PASSWORD, registerUser } from '../helpers/security-kit.js'
import { mailText, type SmtpPeer } from '../helpers/smtp-peer.js'

export const APP_URL = 'http://app.example.test'
/** The /metrics bearer token of the test apps. */
export const METRICS = 'metrics-token-for-organisation-tests'

/** Routes of the app under test: the current organisation through `org`, on the web and the API. */
const WEB_ROUTES = `
  Route.get('/team', (ctx: any) => ({ data: { slug: ctx.organization.slug, role: ctx.membership.role, abilities: ctx.membership.abilities } })).middleware(['auth', 'org']),
  Route.get('/o/@organization/team', (ctx: any) => ({ data: { slug: ctx.organization.slug, role: ctx.membership.role } })).middleware(['auth', 'org']),
  Route.get('/can-invite', () => ({ data: 'yes' })).middleware(['auth', 'org', 'can:members:invite']),`
const API_ROUTES = `import { Route } from 'trowel'

export const ROUTES = [
  Route.get('/me', ({ request }) => ({ data: request.user() })).name('api.me'),
  Route.get('/team', (ctx: any) => ({ data: { slug: ctx.organization.slug, role: ctx.membership.role } })).middleware(['guard:jwt', 'org']),
  Route.get('/can-invite', () => ({ data: 'yes' })).middleware(['guard:jwt', 'org', 'can:members:invite']),
]
`

export interface OrgTarget {
  app: TestApp
  server: Server
  url: string
  db: Knex
}

export async function orgApp(smtp: SmtpPeer | null, configure: (app: TestApp) => void = () => {}): Promise<OrgTarget> {
  const env: Record<string, string> = { APP_URL, APP_NAME: 'Trowel Test', METRICS_TOKEN: METRICS }
  if (smtp) Object.assign(env, { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port) })
  const app = await newApp({ env })
  applyAuthSteps(app)
  applyApiSteps(app, { apiRoutes: API_ROUTES })
  const r = app.craft('auth', '--organizations')
  assert.equal(r.code, 0, r.stdout + r.stderr)
  budgetsOff(app)
  app.edit('routes/web.ts', (t) => (t.includes("from 'trowel'") ? t : `import { Route } from 'trowel'\n${t}`).replace('export const ROUTES = [', `export const ROUTES = [${WEB_ROUTES}`))
  configure(app)
  migrate(app)
  const server = await app.serve()
  return { app, server, url: server.url, db: appDb(app) }
}

export interface Member {
  client: Client
  email: string
  id: number
}

/** Registers `email` and marks the address verified. */
export async function member(t: OrgTarget, email: string, name = email.split('@')[0]!): Promise<Member> {
  const client = await registerUser(t.url, email, name)
  await t.db('users').where('email', email).update({ email_verified_at: new Date() })
  const row = await t.db('users').where('email', email).first('id')
  return { client, email, id: Number(row.id) }
}

/** POSTs `form` with the session's CSRF token (read from /organizations first). */
export async function send(c: Client, path: string, form: Record<string, string> = {}, json = false): Promise<HttpResult> {
  const page = await c.get('/organizations')
  assert.equal(page.status, 200, page.text)
  return c.request('POST', path, { form: { __token: c.csrf(), ...form }, headers: json ? { accept: 'application/json' } : {} })
}

/** Creates an organisation; its slug. */
export async function createOrg(m: Member, name: string): Promise<string> {
  const r = await send(m.client, '/organizations', { name }, true)
  assert.equal(r.status, 201, r.text)
  return r.json().data.slug
}

/** A member's role in an organisation (or null), read from the database. */
export async function roleIn(t: OrgTarget, slug: string, userId: number): Promise<string | null> {
  const row = await t.db('organization_members as m').join('organizations as o', 'o.id', 'm.organization_id').where({ 'o.slug': slug, 'm.user_id': userId }).first('m.role')
  return row ? String(row.role) : null
}

/** Invites `email` as `role`; the token of the mail that arrives. */
export async function invite(t: OrgTarget, smtp: SmtpPeer, by: Member, slug: string, email: string, role = 'member'): Promise<string> {
  const before = smtp.messages.length
  const r = await send(by.client, `/organizations/${slug}/invitations`, { email, role }, true)
  assert.equal(r.status, 201, r.text)
  const mail = await smtp.waitFor((m) => smtp.messages.indexOf(m) >= before && m.to.includes(email))
  const found = /\/invitations\/([A-Za-z0-9_-]{43})/.exec(mailText(mail.raw))
  assert.ok(found, 'the mail carries the link')
  return found[1]!
}

export { PASSWORD }
