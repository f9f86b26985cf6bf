/**
 * Black-box, driven by the inventory: for every kind `manager.inventory.kinds()` names (read from
 * the running app), an intruder holding the phished password and a session creates one through
 * what the app offers; the owner presses "This wasn't me" from the notice and completes the
 * reset it mails; then none of the intruder's items works. A kind this test does not know fails
 * it: a feature that adds a way in must show here that recovery ends it.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { Secret, TOTP } from 'otpauth'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client, type HttpResult } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff } from '../helpers/auth-config.js'
import { startSmtpPeer, mailText, type SmtpPeer, type ReceivedMail } from '../helpers/smtp-peer.js'
import { PASSWORD, appDb } from '../helpers/security-kit.js'
import { ORIGIN, SoftAuthenticator } from '../helpers/soft-authenticator.js'
import { startOidcPeer, type OidcPeer } from '../helpers/oidc-peer.js'

const EMAIL = 'inventory-owner@example.test'
const INTRUDER_INBOX = 'inventory-intruder@example.test'
const NEW_PASSWORD = 'the owner chose this one afterwards'
const SECURE_LINK = /https:\/\/trowel\.example\.test\/account\/secure\/([A-Za-z0-9_-]{43})\b/
const RESET_LINK = /https:\/\/trowel\.example\.test\/change_password\/([A-Za-z0-9_-]{43})\b/
const VERIFY_LINK = /https:\/\/trowel\.example\.test\/email\/verify\/([A-Za-z0-9_-]{43})\b/
const TOKEN_SHAPE = /trw_\d+_[A-Za-z0-9]{46}/
const CODE_LIST = /<li><code>([0-9a-z]{4}(?:-[0-9a-z]{4}){3})<\/code><\/li>/g
const JSON_HEADERS = { accept: 'application/json' }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const API_ROUTES = `import { Route } from 'trowel'

export const ROUTES = [
  Route.get('/me', ({ request }) => ({ data: request.user() })).name('api.me'),
]
`

/** One kind: what the intruder does to get an item of it, and whether that item still works. */
interface Probe {
  create(): Promise<void>
  works(): Promise<boolean>
}

describe('recovery ends every kind of the inventory', () => {
  let app: TestApp
  let server: Server
  let smtp: SmtpPeer
  let db: Knex
  let kinds: string[] = []
  let op: OidcPeer

  before(async () => {
    smtp = await startSmtpPeer()
    // A real OpenID Provider: a linked identity and a pending connect are kinds too.
    op = await startOidcPeer([{ clientId: 'acme-client', clientSecret: 'acme-secret', redirectUris: [`${ORIGIN}/auth/acme/callback`] }])
    op.accounts.set('intruder-sub', { name: 'Intruder' })
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port), APP_URL: ORIGIN } })
    applyAuthSteps(app)
    applyApiSteps(app, { apiRoutes: API_ROUTES })
    budgetsOff(app)
    // Sign-in by e-mail on too: its links and codes are a kind of their own.
    app.edit('config/auth.ts', (t) => t.replace("'two_factor', 'passkeys'],", "'two_factor', 'passkeys', 'email_login'],"))
    // Organisations on too: an invitation the intruder sends is a kind of its own.
    const orgs = app.craft('auth', '--organizations')
    assert.equal(orgs.code, 0, orgs.stdout + orgs.stderr)
    // The test reads the kinds of the running app.
    app.edit('routes/web.ts', (t) =>
      t.replace('export const ROUTES = [', "export const ROUTES = [\n  Route.get('/test/inventory-kinds', (ctx) => ({ kinds: ctx.auth.manager.inventory.kinds().map((k) => k.name) })),"),
    )
    if (!/import \{[^}]*\bRoute\b/.test(app.read('routes/web.ts'))) app.edit('routes/web.ts', (t) => `import { Route } from 'trowel'\n${t}`)
    app.edit('config/social.ts', (t) => t.replace('providers: {', `providers: {\n    acme: { driver: 'oidc', issuer: '${op.issuer}', clientId: 'acme-client', clientSecret: 'acme-secret' },`))
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    if (process.env.DUMP_SERVER) (await import('node:fs')).writeFileSync(process.env.DUMP_SERVER, server?.output() ?? '')
    await db?.destroy()
    await app?.cleanup()
    await smtp?.close()
    await op?.close()
  })

  const subjectOf = (m: ReceivedMail) => /^Subject: (.*)$/m.exec(m.raw)?.[1]?.trim() ?? ''
  const mailsTo = (to: string, subject?: string) => smtp.messages.filter((m) => m.to.includes(to) && (subject === undefined || subjectOf(m) === subject))
  async function waitForMails(to: string, subject: string, count = 1): Promise<ReceivedMail[]> {
    const deadline = Date.now() + 10_000
    for (;;) {
      const found = mailsTo(to, subject)
      if (found.length >= count) return found
      if (Date.now() > deadline) throw new Error(`expected ${count} "${subject}" mail(s) to ${to}; got: ${mailsTo(to).map(subjectOf).join(' | ')}`)
      await sleep(50)
    }
  }
  function linkIn(mail: ReceivedMail, pattern: RegExp): string {
    const token = pattern.exec(mailText(mail.raw))?.[1]
    assert.ok(token, `no link in: ${mailText(mail.raw)}`)
    return token
  }
  async function postJson(client: Client, path: string, body: unknown, page: string): Promise<HttpResult> {
    await client.get(page)
    return client.postJson(path, body, { ...JSON_HEADERS, 'x-csrf-token': client.csrf() })
  }
  const userRow = () => db('users').where('email', EMAIL).first()
  /** A jar holding only the named cookies of `from`. */
  function jarWith(from: Client, names: string[]): Client {
    const jar = new Client(server.url)
    for (const name of names) if (from.cookies.has(name)) jar.cookies.set(name, from.cookies.get(name)!)
    return jar
  }

  it('the app lists its kinds', async () => {
    const r = await new Client(server.url).get('/test/inventory-kinds')
    assert.equal(r.status, 200, r.text)
    kinds = r.json().kinds
    assert.ok(kinds.includes('logins') && kinds.includes('passkeys'), kinds.join(', '))
  })

  it('an intruder\'s item of every kind stops working after "This wasn\'t me" and the reset', async () => {
    // The owner, with a verified address and no second factor.
    const owner = new Client(server.url)
    assert.equal((await owner.submit('/register', '/register', { name: 'Ina Owner', email: EMAIL, password: PASSWORD, password_confirmation: PASSWORD })).location, '/home')
    await db('users').where('email', EMAIL).update({ email_verified_at: new Date() })
    // A reset link mailed earlier (a mailed link of the account).
    await new Client(server.url).submit('/password_reset', '/password_reset', { email: EMAIL })
    const earlierReset = linkIn((await waitForMails(EMAIL, 'Reset your password')).at(-1)!, RESET_LINK)

    // The intruder logs in with the phished password, "remember me" on: the new-device notice.
    const intruder = new Client(server.url)
    assert.equal((await intruder.submit('/login', '/login', { email: EMAIL, password: PASSWORD, remember: '1' })).location, '/home')
    assert.equal((await intruder.submit('/confirm-password', '/confirm-password', { password: PASSWORD })).status, 302)
    const token = linkIn((await waitForMails(EMAIL, 'New login to your account')).at(-1)!, SECURE_LINK)
    let jwt = ''
    let personal = ''
    let passkey: SoftAuthenticator | null = null
    let verifyToken = ''
    let pendingChallenge: { challenge: string } | null = null
    let signInLink = ''
    let trusted: Client | null = null

    const probes: Record<string, Probe> = {
      logins: { create: async () => undefined, works: async () => (await intruder.get('/home')).status === 200 },
      remember_tokens: {
        create: async () => assert.ok(intruder.cookies.has('trowel_remember'), 'the remember-me cookie'),
        works: async () => (await jarWith(intruder, ['trowel_remember']).get('/home')).status === 200,
      },
      device_cookies: {
        create: async () => assert.ok(intruder.cookies.has('trowel_device'), 'the device cookie'),
        // A known device logs in without a new-device notice.
        works: async () => {
          const before = mailsTo(EMAIL, 'New login to your account').length
          const jar = jarWith(intruder, ['trowel_device'])
          const r = await jar.submit('/login', '/login', { email: EMAIL, password: NEW_PASSWORD })
          assert.equal(r.location, '/home')
          await sleep(1500)
          return mailsTo(EMAIL, 'New login to your account').length === before
        },
      },
      api_tokens: {
        create: async () => {
          const r = await new Client(server.url).postJson('/api/auth', { username: EMAIL, password: PASSWORD })
          assert.equal(r.status, 200, r.text)
          jwt = r.json().data
        },
        works: async () => (await new Client(server.url).postJson('/api/reauth', { token: jwt })).status === 200,
      },
      personal_tokens: {
        create: async () => {
          const r = await intruder.submit('/account/tokens', '/account/tokens', { name: 'intruder script', abilities: '', expires: '30' })
          assert.equal(r.status, 302, r.text)
          const page = await intruder.get('/account/tokens')
          personal = TOKEN_SHAPE.exec(page.text)?.[0] ?? ''
          assert.ok(personal, 'the token is shown once')
        },
        works: async () => (await fetch(`${server.url}/api/me`, { headers: { authorization: `Bearer ${personal}` } })).status === 200,
      },
      organization_invitations: {
        // The intruder opens an organisation and invites an accomplice into it.
        create: async () => {
          await intruder.get('/organizations')
          const made = await intruder.request('POST', '/organizations', { form: { __token: intruder.csrf(), name: 'Intruder Inc' }, headers: { accept: 'application/json' } })
          assert.equal(made.status, 201, made.text)
          const slug = made.json().data.slug as string
          const sent = await intruder.request('POST', `/organizations/${slug}/invitations`, { form: { __token: intruder.csrf(), email: 'accomplice@example.test', role: 'admin' }, headers: { accept: 'application/json' } })
          assert.equal(sent.status, 201, sent.text)
        },
        works: async () => {
          const row = await db('organization_invitations').where('email', 'accomplice@example.test').first()
          return Boolean(row) && !row.revoked_at && !row.accepted_at && new Date(row.expires_at).getTime() > Date.now()
        },
      },
      email_changes: {
        create: async () => {
          await intruder.get('/account')
          await intruder.post('/account/email', { __token: intruder.csrf(), form: 'email', email: INTRUDER_INBOX, password: PASSWORD })
          verifyToken = linkIn((await waitForMails(INTRUDER_INBOX, 'Confirm your new e-mail address')).at(-1)!, VERIFY_LINK)
        },
        works: async () => {
          const page = await intruder.get(`/email/verify/${verifyToken}`)
          if (page.status === 200 && /name="__token"/.test(page.text)) await intruder.post(`/email/verify/${verifyToken}`, { __token: intruder.csrf() })
          return (await userRow()).email === INTRUDER_INBOX
        },
      },
      mailed_links: {
        create: async () => assert.ok(earlierReset),
        works: async () => {
          const r = await new Client(server.url).submit(`/change_password/${earlierReset}`, `/change_password/${earlierReset}`, { password: 'the intruder wants this', password_confirmation: 'the intruder wants this' })
          return r.location === '/login'
        },
      },
      email_logins: {
        // A sign-in link mailed to the account (the intruder asked for it; the test reads the mail
        // as a mailbox the intruder had reached would).
        create: async () => {
          const before = smtp.messages.length
          const asked = await new Client(server.url).submit('/login/email', '/login/email', { email: EMAIL })
          assert.equal(asked.location, '/login/email/sent', asked.text)
          const deadline = Date.now() + 10_000
          while (!smtp.messages.slice(before).some((m) => m.to.includes(EMAIL) && / sign-in code: /.test(subjectOf(m)))) {
            if (Date.now() > deadline) throw new Error('no sign-in mail')
            await new Promise((r) => setTimeout(r, 50))
          }
          const mail = smtp.messages.slice(before).find((m) => m.to.includes(EMAIL) && / sign-in code: /.test(subjectOf(m)))!
          signInLink = /\/login\/email\/([A-Za-z0-9_-]{43})/.exec(mailText(mail.raw))?.[1] ?? ''
          assert.ok(signInLink, 'the sign-in link')
        },
        works: async () => {
          const guest = new Client(server.url)
          await guest.get(`/login/email/${signInLink}`)
          const r = await guest.post(`/login/email/${signInLink}`, { __token: guest.csrf() })
          return r.location === '/home' || r.location === '/two-factor-challenge'
        },
      },
      login_challenges: {
        // A passkey registration begun by the intruder, to finish later.
        create: async () => {
          const r = await postJson(intruder, '/passkeys/register/options', {}, '/account/passkeys')
          assert.equal(r.status, 200, r.text)
          pendingChallenge = r.json()
        },
        works: async () => {
          const again = new Client(server.url)
          const login = await again.submit('/login', '/login', { email: EMAIL, password: NEW_PASSWORD })
          if (login.location !== '/home') return false
          await again.submit('/confirm-password', '/confirm-password', { password: NEW_PASSWORD })
          const r = await postJson(again, '/passkeys/register', { response: new SoftAuthenticator().attest(pendingChallenge!) }, '/account/passkeys')
          return r.status === 201
        },
      },
      social_identities: {
        // The intruder connects their own provider account to the owner's.
        create: async () => {
          const page = await intruder.get('/account/connections')
          assert.equal(page.status, 200, `${page.status} ${page.location ?? ''} ${page.text.slice(0, 300)}`)
          const go = await intruder.post('/account/connections/acme', { __token: intruder.csrf() })
          assert.ok(go.location?.startsWith(op.issuer), `connect: ${go.status} ${go.location ?? ''}`)
          op.next = 'intruder-sub'
          const done = await intruder.get(await op.roundTrip(go.location!))
          assert.equal(done.location, '/account/connections')
        },
        works: async () => {
          const guest = new Client(server.url)
          op.next = 'intruder-sub'
          const done = await guest.get(await op.roundTrip((await guest.get('/auth/acme/redirect')).location!))
          return done.location === '/home' || done.location === '/two-factor-challenge'
        },
      },
      social_pending: {
        // A connect begun by the intruder, to finish later.
        create: async () => {
          await intruder.get('/account/connections')
          const go = await intruder.post('/account/connections/acme', { __token: intruder.csrf() })
          assert.ok(go.location?.startsWith(op.issuer), `connect: ${go.status}`)
        },
        works: async () => Number((await db('social_pending').where('user_id', (await userRow()).id).count({ n: '*' }))[0]!.n) > 0,
      },
      passkeys: {
        create: async () => {
          const authenticator = new SoftAuthenticator()
          const options = await postJson(intruder, '/passkeys/register/options', {}, '/account/passkeys')
          assert.equal(options.status, 200, options.text)
          const r = await postJson(intruder, '/passkeys/register', { response: authenticator.attest(options.json()), name: 'intruder key' }, '/account/passkeys')
          assert.equal(r.status, 201, r.text)
          passkey = authenticator
        },
        works: async () => {
          const guest = new Client(server.url)
          const options = await postJson(guest, '/passkeys/login/options', {}, '/login')
          return (await postJson(guest, '/passkeys/login', { response: passkey!.assert(options.json()) }, '/login')).status === 200
        },
      },
      totp: {
        create: async () => {
          const page = await intruder.get('/account/two-factor')
          assert.equal(page.status, 200, `two-factor page: ${page.status} ${page.location ?? ''}`)
          const secret = /<code class="secret"[^>]*>([A-Z2-7 ]+)<\/code>/.exec(page.text)![1]!.replaceAll(' ', '')
          const r = await intruder.post('/account/two-factor', { __token: intruder.csrf(), code: new TOTP({ secret: Secret.fromBase32(secret) }).generate() })
          const shown = r.location ? await intruder.get(r.location) : r
          const codes = [...shown.text.matchAll(CODE_LIST)].map((m) => m[1]!)
          assert.ok(codes.length > 0, 'recovery codes shown')
          // trusted_devices: a second login of the intruder, trusted with a recovery code.
          trusted = new Client(server.url)
          const login = await trusted.submit('/login', '/login', { email: EMAIL, password: PASSWORD })
          assert.equal(login.location, '/two-factor-challenge')
          const done = await trusted.submit('/two-factor-challenge', '/two-factor-challenge', { recovery_code: codes[0]!, trust: '1' })
          assert.equal(done.location, '/home', 'the trusted login')
        },
        works: async () => Boolean((await userRow()).two_factor_confirmed_at),
      },
      trusted_devices: {
        create: async () => assert.ok(trusted?.cookies.has('trowel_2fa_trusted'), 'the trust cookie'),
        works: async () => Number((await db('user_tokens').where({ user_id: (await userRow()).id, purpose: 'two_factor_trust' }).count({ n: '*' }))[0]!.n) > 0,
      },
    }

    const unknown = kinds.filter((kind) => !probes[kind])
    assert.deepEqual(unknown, [], `kinds this test cannot create yet: ${unknown.join(', ')}`)
    // In an order the app allows (a second factor makes some of the others ask for it).
    const order = ['logins', 'remember_tokens', 'device_cookies', 'api_tokens', 'personal_tokens', 'organization_invitations', 'email_changes', 'mailed_links', 'email_logins', 'login_challenges', 'social_pending', 'social_identities', 'passkeys', 'totp', 'trusted_devices']
    const present = [...order.filter((k) => kinds.includes(k)), ...kinds.filter((k) => !order.includes(k))]
    for (const kind of present) await probes[kind]!.create()
    // The checks mean something: each item works before the recovery (those a check would use up aside).
    for (const kind of ['logins', 'remember_tokens', 'personal_tokens', 'social_pending', 'social_identities', 'passkeys', 'totp', 'trusted_devices'].filter((k) => present.includes(k))) {
      assert.ok(await probes[kind]!.works(), `${kind}: the intruder's item works before the recovery`)
    }

    // The owner: "This wasn't me", then the reset it mails.
    const resets = mailsTo(EMAIL, 'Reset your password').length
    const mailbox = new Client(server.url)
    await mailbox.get(`/account/secure/${token}`)
    assert.equal((await mailbox.post(`/account/secure/${token}`, { __token: mailbox.csrf() })).status, 303)
    const reset = linkIn((await waitForMails(EMAIL, 'Reset your password', resets + 1)).at(-1)!, RESET_LINK)
    assert.equal((await mailbox.submit(`/change_password/${reset}`, `/change_password/${reset}`, { password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })).location, '/login')

    const alive: string[] = []
    // Checks that log in (device cookie, login challenge) come last: they make new items.
    const last = ['device_cookies', 'login_challenges', 'email_logins']
    for (const kind of [...present.filter((k) => !last.includes(k)), ...last.filter((k) => present.includes(k))]) if (await probes[kind]!.works()) alive.push(kind)
    assert.deepEqual(alive, [], `still working after recovery: ${alive.join(', ')}`)
  })
})
