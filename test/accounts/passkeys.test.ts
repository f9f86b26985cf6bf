/**
 * Black-box: passkeys over HTTP, with a software authenticator (an ES256 key pair, a hand-built
 * "none" attestation and signed assertions) standing in for the browser. The script route; the
 * options' shapes (discoverable credentials, an opaque user handle, the RP ID and origin from
 * APP_URL); registration behind `auth` and `password.confirm`; a registration stored with its
 * public key, counter, transports and backup flags, listed, audited; forged, garbage and replayed
 * answers refused with E_PASSKEY_INVALID / E_PASSKEY_FAILED and nothing logged in; a challenge
 * used once, also by 20 answers at once; a counter that goes backwards refused and audited; a
 * logged-in user's step-up with their own passkey and refusal of someone else's; removal (only
 * the owner's, 404 otherwise), after which the passkey signs nobody in. With two factors: a TOTP
 * user's pending password login finished by a passkey (its `next` kept), a passkey login let through
 * `mfa`, and a password login stepping up with a passkey back to the `mfa` page it wanted.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff, setBudgets } from '../helpers/auth-config.js'
import { PASSWORD, appDb } from '../helpers/security-kit.js'
import { ORIGIN, RP_ID, SoftAuthenticator } from '../helpers/soft-authenticator.js'

const JSON_HEADERS = { accept: 'application/json' }

const b64url = (bytes: Uint8Array | Buffer | string) => Buffer.from(bytes as Uint8Array).toString('base64url')

// One app for the file: the second suite serves it again with its own budget.
let app: TestApp
let db: Knex
after(async () => {
  await db?.destroy()
  await app?.cleanup()
})

describe('passkeys over HTTP', () => {
  let server: Server

  before(async () => {
    app = await newApp({ env: { MAIL_DRIVER: 'log', APP_URL: ORIGIN, APP_NAME: 'Passkey Test' } })
    applyAuthSteps(app)
    // Every request comes from 127.0.0.1: the per-address budgets would trip.
    budgetsOff(app)
    app.edit('routes/web.ts', (t) => t.replace('export const ROUTES = [', "export const ROUTES = [\n  Route.get('/vault', () => 'the vault').middleware(['auth', 'mfa']),"))
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(() => server?.stop())

  /** A client with a session and a CSRF token (from `page`). */
  async function visitor(page = '/login'): Promise<Client> {
    const client = new Client(server.url)
    await client.get(page)
    return client
  }

  async function postJson(client: Client, path: string, body: unknown = {}, page?: string) {
    if (page) await client.get(page)
    return client.postJson(path, body, { ...JSON_HEADERS, 'x-csrf-token': client.csrf() })
  }

  /** Registers `email` and logs in with the password (a fresh password confirmation). */
  async function account(email: string): Promise<{ client: Client; id: number }> {
    const registering = new Client(server.url)
    const r = await registering.submit('/register', '/register', { name: 'Pass Key', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home', 'registration failed')
    // Adding a passkey needs a verified address (the link of the registration mail, done here directly).
    await db('users').where('email', email).update({ email_verified_at: new Date() })
    const client = new Client(server.url)
    const login = await client.submit('/login', '/login', { email, password: PASSWORD })
    assert.equal(login.location, '/home', 'login failed')
    const id = Number((await db('users').where('email', email).first('id')).id)
    return { client, id }
  }

  /** Adds a passkey for a logged-in, confirmed client; returns the authenticator. */
  async function addPasskey(client: Client, name?: string, authenticator = new SoftAuthenticator()): Promise<SoftAuthenticator> {
    const options = await postJson(client, '/passkeys/register/options', {}, '/account/passkeys')
    assert.equal(options.status, 200, options.text)
    const r = await postJson(client, '/passkeys/register', { response: authenticator.attest(options.json()), ...(name === undefined ? {} : { name }) })
    assert.equal(r.status, 201, r.text)
    return authenticator
  }

  async function loginOptions(client: Client, page = '/login') {
    const r = await postJson(client, '/passkeys/login/options', {}, page)
    assert.equal(r.status, 200, r.text)
    return r.json() as { challenge: string }
  }

  async function events(type: string, userId: number | null, atLeast = 1): Promise<{ details: string }[]> {
    let found: { details: string }[] = []
    for (let i = 0; i < 100; i++) {
      const q = db('auth_events').where({ type }).orderBy('id')
      found = await (userId === null ? q.whereNull('user_id') : q.where('user_id', userId))
      if (found.length >= atLeast) break
      await new Promise((r) => setTimeout(r, 50))
    }
    return found
  }

  async function isLoggedIn(client: Client): Promise<boolean> {
    return (await client.get('/home')).status === 200
  }

  it('serves the browser script from the app, cacheable', async () => {
    const r = await new Client(server.url).get('/passkeys/client.js')
    assert.equal(r.status, 200)
    assert.match(r.headers.get('content-type') ?? '', /^text\/javascript/)
    assert.match(r.headers.get('cache-control') ?? '', /max-age=\d+/)
    assert.match(r.text, /SimpleWebAuthnBrowser/, 'the library bundle is included')
    assert.match(r.text, /data-passkey-login/)
    assert.match(r.text, /x-csrf-token/)
    const etag = r.headers.get('etag')
    assert.ok(etag)
    const again = await new Client(server.url).get('/passkeys/client.js', { 'if-none-match': etag })
    assert.equal(again.status, 304)
  })

  it('the login page offers a passkey sign-in and autofill', async () => {
    const r = await new Client(server.url).get('/login')
    assert.match(r.text, /<script src="\/passkeys\/client\.js" defer><\/script>/)
    assert.match(r.text, /<p data-passkey-offer hidden><button type="button" class="secondary" data-passkey-login>Sign in with a passkey<\/button><\/p>/)
    assert.match(r.text, /autocomplete="username webauthn"/)
  })

  it('sign-in options: a fresh challenge, the RP ID of APP_URL, any passkey, user verification required', async () => {
    const client = await visitor()
    const a = await postJson(client, '/passkeys/login/options')
    assert.equal(a.status, 200, a.text)
    assert.equal(a.headers.get('cache-control'), 'no-store')
    const options = a.json()
    assert.match(options.challenge, /^[A-Za-z0-9_-]{43}$/)
    assert.equal(options.rpId, RP_ID)
    assert.deepEqual(options.allowCredentials ?? [], [])
    assert.equal(options.userVerification, 'required')
    assert.ok(options.timeout > 0 && options.timeout <= 300_000)
    const b = (await postJson(client, '/passkeys/login/options')).json()
    assert.notEqual(b.challenge, options.challenge)
    // Only the digest is stored, for at most 5 minutes.
    const row = await db('auth_challenges').where({ purpose: 'passkey_login' }).orderBy('id', 'desc').first()
    assert.equal(row.challenge_hash, createHash('sha256').update(b.challenge).digest('hex'))
    assert.equal(row.user_id, null)
    assert.ok(new Date(row.expires_at).getTime() - new Date(row.created_at).getTime() <= 300_000)
    // Without the CSRF token: refused.
    const forged = await client.postJson('/passkeys/login/options', {}, JSON_HEADERS)
    assert.equal(forged.status, 419)
  })

  it('registration needs a login and a recent password confirmation', async () => {
    const guest = await visitor()
    const r = await postJson(guest, '/passkeys/register/options')
    assert.equal(r.status, 401)
    const registering = new Client(server.url)
    await registering.submit('/register', '/register', { name: 'New', email: 'unconfirmed@example.test', password: PASSWORD, password_confirmation: PASSWORD })
    await db('users').where('email', 'unconfirmed@example.test').update({ email_verified_at: new Date() })
    // Registering counts as a typed password; a browser restored by "remember me" has typed none.
    const remembered = new Client(server.url)
    await remembered.submit('/login', '/login', { email: 'unconfirmed@example.test', password: PASSWORD, remember: '1' })
    const registered = new Client(server.url)
    registered.cookies.set('trowel_remember', remembered.cookies.get('trowel_remember')!)
    assert.equal((await registered.get('/account')).status, 200)
    const json = await postJson(registered, '/passkeys/register/options', {}, '/account')
    assert.equal(json.status, 423)
    assert.equal(json.json().code, 'E_PASSWORD_CONFIRMATION_REQUIRED')
    const form = await registered.post('/passkeys/register/options', { __token: registered.csrf() }, { referer: `${server.url}/account/passkeys` })
    assert.equal(form.status, 302)
    assert.equal(form.location, '/confirm-password')
    const submit = await postJson(registered, '/passkeys/register', { response: new SoftAuthenticator().attest({ challenge: b64url(randomBytes(32)) }) }, '/account')
    assert.equal(submit.status, 423)
  })

  it('registration options: discoverable, an opaque stable user handle, the user\'s passkeys excluded', async () => {
    const { client, id } = await account('options@example.test')
    const first = (await postJson(client, '/passkeys/register/options', {}, '/account/passkeys')).json()
    assert.deepEqual(first.rp, { name: 'Passkey Test', id: RP_ID })
    assert.equal(first.user.name, 'options@example.test')
    assert.equal(first.authenticatorSelection.residentKey, 'required')
    assert.equal(first.authenticatorSelection.requireResidentKey, true)
    assert.equal(first.authenticatorSelection.userVerification, 'preferred')
    assert.equal(first.attestation, 'none')
    assert.deepEqual(first.excludeCredentials, [])
    assert.match(first.challenge, /^[A-Za-z0-9_-]{43}$/)
    const handle = Buffer.from(first.user.id, 'base64url')
    assert.equal(handle.length, 32)
    assert.ok(!handle.toString('utf8').includes('options@example.test'), 'the handle is not the e-mail')
    assert.notEqual(first.user.id, b64url(String(id)))
    const stored = await db('auth_challenges').where({ purpose: 'passkey_register', user_id: id })
    assert.equal(stored.length, 1)
    const authenticator = new SoftAuthenticator()
    const added = await postJson(client, '/passkeys/register', { response: authenticator.attest(first) })
    assert.equal(added.status, 201, added.text)
    const second = (await postJson(client, '/passkeys/register/options', {}, '/account/passkeys')).json()
    assert.equal(second.user.id, first.user.id, 'the handle is stable')
    assert.deepEqual(second.excludeCredentials.map((c: { id: string }) => c.id), [authenticator.id])
    const other = await account('options-other@example.test')
    const theirs = (await postJson(other.client, '/passkeys/register/options', {}, '/account/passkeys')).json()
    assert.notEqual(theirs.user.id, first.user.id)
  })

  it('a registration is stored, listed and audited; the same answer again is refused', async () => {
    const { client, id } = await account('register@example.test')
    const options = (await postJson(client, '/passkeys/register/options', {}, '/account/passkeys')).json()
    const authenticator = new SoftAuthenticator(ORIGIN, RP_ID, true)
    const answer = authenticator.attest(options)
    const r = await postJson(client, '/passkeys/register', { response: answer, name: '  Work   laptop ' })
    assert.equal(r.status, 201, r.text)
    assert.equal(r.json().passkey.name, 'Work laptop')
    const rows = await db('passkeys').where('user_id', id)
    assert.equal(rows.length, 1)
    const row = rows[0]
    assert.equal(row.credential_id, authenticator.id)
    assert.equal(row.public_key, b64url(authenticator.cosePublicKey))
    assert.equal(Number(row.counter), 0)
    assert.equal(row.transports, 'internal,hybrid')
    assert.equal(row.device_type, 'multiDevice')
    assert.equal(Boolean(row.backed_up), true)
    assert.equal(row.name, 'Work laptop')
    assert.equal(row.last_used_at, null)
    // The challenge is gone.
    assert.equal((await db('auth_challenges').where({ purpose: 'passkey_register', user_id: id })).length, 0)
    const added = await events('auth:passkey_added', id)
    assert.equal(added.length, 1)

    const page = await client.get('/account/passkeys')
    assert.equal(page.status, 200)
    assert.equal(page.headers.get('cache-control'), 'no-store')
    assert.match(page.text, /Work laptop/)
    assert.match(page.text, /Synced across your devices/)
    assert.match(page.text, /Passkey added\./)
    assert.match(page.text, new RegExp(`action="/account/passkeys/${row.id}/delete"`))
    assert.match(page.text, /data-passkey-register/)
    assert.ok(!page.text.includes(row.public_key))
    const list = (await client.get('/account/passkeys', JSON_HEADERS)).json()
    assert.equal(list.data.length, 1)
    assert.equal(list.data[0].name, 'Work laptop')
    assert.equal(list.data[0].backed_up, true)

    // The same answer again: its challenge is used up.
    const replay = await postJson(client, '/passkeys/register', { response: answer })
    assert.equal(replay.status, 400)
    assert.equal(replay.json().code, 'E_PASSKEY_INVALID')
    assert.equal((await db('passkeys').where('user_id', id)).length, 1)
  })

  it('a default name, and a name over 100 characters refused', async () => {
    const { client, id } = await account('names@example.test')
    await addPasskey(client)
    const row = await db('passkeys').where('user_id', id).first()
    assert.match(row.name, /^Passkey \(\d{4}-\d\d-\d\d\)$/)
    const options = (await postJson(client, '/passkeys/register/options', {}, '/account/passkeys')).json()
    const r = await postJson(client, '/passkeys/register', { response: new SoftAuthenticator().attest(options), name: 'x'.repeat(101) })
    assert.equal(r.status, 422)
    assert.ok(r.json().errors.name)
    assert.equal((await db('passkeys').where('user_id', id)).length, 1)
  })

  it('garbage, forged and misdirected registrations are refused with E_PASSKEY_INVALID', async () => {
    const { client, id } = await account('forged-register@example.test')
    for (const body of [{}, { response: {} }, { response: 'nope' }, { response: { id: 'x', rawId: 'x', type: 'public-key', response: { clientDataJSON: '!!!' } } }]) {
      const r = await postJson(client, '/passkeys/register', body, '/account/passkeys')
      assert.equal(r.status, 400, JSON.stringify(body))
      assert.equal(r.json().code, 'E_PASSKEY_INVALID')
    }
    // A challenge never issued.
    const unknown = await postJson(client, '/passkeys/register', { response: new SoftAuthenticator().attest({ challenge: b64url(randomBytes(32)) }) }, '/account/passkeys')
    assert.equal(unknown.status, 400)
    // Another site's origin, then another RP ID, then a sign-in answer: each uses its challenge up.
    for (const make of [
      (o: { challenge: string }) => new SoftAuthenticator('https://evil.example').attest(o),
      (o: { challenge: string }) => new SoftAuthenticator(ORIGIN, 'evil.example').attest(o),
      (o: { challenge: string }) => new SoftAuthenticator().attest(o, { type: 'webauthn.get' }),
    ]) {
      const options = (await postJson(client, '/passkeys/register/options', {}, '/account/passkeys')).json()
      const r = await postJson(client, '/passkeys/register', { response: make(options) })
      assert.equal(r.status, 400, r.text)
      assert.equal(r.json().code, 'E_PASSKEY_INVALID')
    }
    assert.equal((await db('passkeys').where('user_id', id)).length, 0)
    // A challenge issued to another user is not this user's.
    const other = await account('forged-register-other@example.test')
    const theirs = (await postJson(other.client, '/passkeys/register/options', {}, '/account/passkeys')).json()
    const stolen = await postJson(client, '/passkeys/register', { response: new SoftAuthenticator().attest(theirs) }, '/account/passkeys')
    assert.equal(stolen.status, 400)
    assert.equal((await db('passkeys').whereIn('user_id', [id, other.id])).length, 0)
  })

  it('signs in with a passkey: a new login, /home, the counter and last use stored, audited', async () => {
    const { client: owner, id } = await account('signin@example.test')
    const authenticator = await addPasskey(owner, 'Phone')
    const guest = await visitor()
    const options = await loginOptions(guest)
    const before = guest.cookies.get('trowel_session')
    const r = await postJson(guest, '/passkeys/login', { response: authenticator.assert(options) })
    assert.equal(r.status, 200, r.text)
    assert.deepEqual(r.json(), { redirect: '/home' })
    assert.ok(guest.cookies.has('trowel_auth'), 'no login cookie')
    assert.notEqual(guest.cookies.get('trowel_session'), before, 'the session was not regenerated')
    assert.equal(await isLoggedIn(guest), true)
    const row = await db('passkeys').where('user_id', id).first()
    assert.equal(Number(row.counter), 1)
    assert.ok(row.last_used_at)
    const logins = await events('auth:login_succeeded', id, 2)
    assert.ok(logins.length >= 2)
    // A passkey is not a typed password: password.confirm still asks.
    const confirm = await postJson(guest, '/passkeys/register/options', {}, '/account/passkeys')
    assert.equal(confirm.status, 423)
    // The list shows when it was last used.
    assert.doesNotMatch((await guest.get('/account/passkeys')).text, />Never</)
  })

  it('follows a same-site next, never another site', async () => {
    const { client: owner } = await account('next@example.test')
    const authenticator = await addPasskey(owner)
    for (const [next, expected] of [['/account/devices', '/account/devices'], ['https://evil.example/', '/home'], ['//evil.example', '/home']]) {
      const guest = await visitor()
      const options = await loginOptions(guest)
      const r = await postJson(guest, '/passkeys/login', { response: authenticator.assert(options), next })
      assert.equal(r.status, 200, r.text)
      assert.equal(r.json().redirect, expected)
    }
  })

  it('a sign-in answer works once: replayed, also by 20 at once, it logs nobody in', async () => {
    const { client: owner, id } = await account('replay@example.test')
    const authenticator = await addPasskey(owner)
    const first = await visitor()
    const answer = authenticator.assert(await loginOptions(first))
    assert.equal((await postJson(first, '/passkeys/login', { response: answer })).status, 200)
    const thief = await visitor()
    const replay = await postJson(thief, '/passkeys/login', { response: answer })
    assert.equal(replay.status, 401)
    assert.equal(replay.json().code, 'E_PASSKEY_FAILED')
    assert.equal(thief.cookies.has('trowel_auth'), false)
    assert.equal(await isLoggedIn(thief), false)

    const setup = await visitor()
    const fresh = authenticator.assert(await loginOptions(setup))
    const clients = await Promise.all(Array.from({ length: 20 }, () => visitor()))
    const results = await Promise.all(clients.map((c) => postJson(c, '/passkeys/login', { response: fresh })))
    const statuses = results.map((r) => r.status).sort()
    assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${statuses.join(',')}`)
    assert.equal(statuses.filter((s) => s === 401).length, 19, `statuses: ${statuses.join(',')}`)
    const loggedIn = await Promise.all(clients.map(isLoggedIn))
    assert.equal(loggedIn.filter(Boolean).length, 1)
    const failed = await events('auth:two_factor_failed', id, 1)
    assert.ok(failed.some((e) => JSON.parse(e.details).method === 'passkey'))
  })

  it('an unknown passkey, a bad signature or another site\'s answer signs nobody in', async () => {
    const { client: owner, id } = await account('forged-login@example.test')
    const authenticator = await addPasskey(owner)
    const cases = [
      (o: { challenge: string }) => new SoftAuthenticator().assert(o),
      (o: { challenge: string }) => authenticator.assert(o, { tamper: true }),
      (o: { challenge: string }) => authenticator.assert(o, { origin: 'https://evil.example' }),
      // A challenge this server never issued (the one issued stays unused).
      () => authenticator.assert({ challenge: b64url(randomBytes(32)) }),
    ]
    for (const make of cases) {
      const guest = await visitor()
      const r = await postJson(guest, '/passkeys/login', { response: make(await loginOptions(guest)) })
      assert.equal(r.status, 401, r.text)
      assert.equal(r.json().code, 'E_PASSKEY_FAILED')
      assert.equal(await isLoggedIn(guest), false)
    }
    for (const body of [{}, { response: { id: 1 } }, { response: 'x' }]) {
      const guest = await visitor()
      const r = await postJson(guest, '/passkeys/login', body)
      assert.equal(r.status, 400)
      assert.equal(r.json().code, 'E_PASSKEY_INVALID')
    }
    // None of those moved the stored counter.
    assert.equal(Number((await db('passkeys').where('user_id', id).first()).counter), 0)
  })

  it('a counter that goes backwards is refused as a possible clone, audited, and stores nothing', async () => {
    const { client: owner, id } = await account('clone@example.test')
    const authenticator = await addPasskey(owner)
    const guest = await visitor()
    assert.equal((await postJson(guest, '/passkeys/login', { response: authenticator.assert(await loginOptions(guest), { counter: 10 }) })).status, 200)
    const before = await events('auth:two_factor_failed', id, 0)
    for (const counter of [10, 3]) {
      const clone = await visitor()
      const r = await postJson(clone, '/passkeys/login', { response: authenticator.assert(await loginOptions(clone), { counter }) })
      assert.equal(r.status, 401, r.text)
      assert.equal(await isLoggedIn(clone), false)
    }
    assert.equal(Number((await db('passkeys').where('user_id', id).first()).counter), 10)
    const after = await events('auth:two_factor_failed', id, before.length + 2)
    assert.equal(after.length, before.length + 2)
    assert.equal(JSON.parse(after.at(-1)!.details).method, 'passkey')
    const next = await visitor()
    assert.equal((await postJson(next, '/passkeys/login', { response: authenticator.assert(await loginOptions(next), { counter: 11 }) })).status, 200)
  })

  it('a logged-in user steps up with their own passkey, and cannot switch to someone else\'s', async () => {
    const a = await account('stepup-a@example.test')
    const b = await account('stepup-b@example.test')
    const keyA = await addPasskey(a.client)
    const own = await postJson(a.client, '/passkeys/login', { response: keyA.assert(await loginOptions(a.client, '/home')) })
    assert.equal(own.status, 200, own.text)
    const page = await a.client.get('/account')
    assert.match(page.text, /stepup-a@example\.test/)

    const foreign = await postJson(b.client, '/passkeys/login', { response: keyA.assert(await loginOptions(b.client, '/home')) })
    assert.equal(foreign.status, 403)
    assert.equal(foreign.json().code, 'E_PASSKEY_WRONG_ACCOUNT')
    assert.match((await b.client.get('/account')).text, /stepup-b@example\.test/, 'the login was switched')
  })

  it('a TOTP user\'s password login waits for its second step; a passkey finishes it, with its next', async () => {
    const { client: owner, id } = await account('totp@example.test')
    const authenticator = await addPasskey(owner)
    await db('users').where('id', id).update({ two_factor_confirmed_at: new Date() })
    const browser = new Client(server.url)
    const login = await browser.submit('/login?next=/account/devices', '/login', { email: 'totp@example.test', password: PASSWORD, next: '/account/devices' })
    assert.equal(login.location, '/two-factor-challenge')
    assert.equal(await isLoggedIn(browser), false)
    const page = await browser.get('/two-factor-challenge')
    assert.match(page.text, /data-passkey-login/)
    const options = await loginOptions(browser, '/two-factor-challenge')
    const r = await postJson(browser, '/passkeys/login', { response: authenticator.assert(options) })
    assert.equal(r.status, 200, r.text)
    assert.deepEqual(r.json(), { redirect: '/account/devices' })
    assert.equal(await isLoggedIn(browser), true)
    // The login satisfies two-factor: the `mfa` route lets it in, the challenge has nothing to ask.
    assert.equal((await browser.get('/vault')).status, 200)
    assert.equal((await browser.get('/two-factor-challenge')).status, 302)
    // A passkey sign-in straight from /login: no challenge either.
    const direct = await visitor()
    const straight = await postJson(direct, '/passkeys/login', { response: authenticator.assert(await loginOptions(direct)) })
    assert.deepEqual(straight.json(), { redirect: '/home' })
    assert.equal((await direct.get('/vault')).status, 200)
  })

  it('a password login steps up with a passkey for an `mfa` route, then goes back to it', async () => {
    const { client, id } = await account('stepup-mfa@example.test')
    const authenticator = await addPasskey(client)
    // A new password login (amr pwd) without TOTP: no second step at login, `mfa` asks for one.
    const browser = new Client(server.url)
    assert.equal((await browser.submit('/login', '/login', { email: 'stepup-mfa@example.test', password: PASSWORD })).location, '/home')
    const vault = await browser.get('/vault')
    assert.equal(vault.status, 302)
    assert.equal(vault.location, '/two-factor-challenge')
    const options = await loginOptions(browser, '/two-factor-challenge')
    const r = await postJson(browser, '/passkeys/login', { response: authenticator.assert(options) })
    assert.equal(r.status, 200, r.text)
    assert.deepEqual(r.json(), { redirect: '/vault' })
    const after = await browser.get('/vault')
    assert.equal(after.status, 200)
    assert.equal(after.text, 'the vault')
    assert.equal(Number((await db('passkeys').where('user_id', id).first()).counter), 1)
  })

  it('deleting the account deletes its passkeys: they sign nobody in, not even a later account', async () => {
    const { client, id } = await account('deleted@example.test')
    const authenticator = await addPasskey(client)
    const r = await client.submit('/account', '/account/delete', {})
    assert.equal(r.status, 302)
    assert.equal((await db('users').where('id', id)).length, 0)
    assert.equal((await db('passkeys').where('credential_id', authenticator.id)).length, 0)
    await account('after-deleted@example.test')
    const guest = await visitor()
    const signIn = await postJson(guest, '/passkeys/login', { response: authenticator.assert(await loginOptions(guest)) })
    assert.equal(signIn.status, 401)
    assert.equal(await isLoggedIn(guest), false)
  })

  it('removing: only the owner\'s (404 otherwise), audited, and the passkey signs nobody in afterwards', async () => {
    const a = await account('remove-a@example.test')
    const b = await account('remove-b@example.test')
    const key = await addPasskey(a.client, 'Old phone')
    const row = await db('passkeys').where('user_id', a.id).first()
    for (const id of [String(row.id), '999999', 'abc', '-1']) {
      const r = await b.client.submit('/account/passkeys', `/account/passkeys/${id}/delete`, {})
      assert.equal(r.status, 404, id)
    }
    assert.equal((await db('passkeys').where('user_id', a.id)).length, 1)
    const guest = new Client(server.url)
    const anonymous = await guest.submit('/login', `/account/passkeys/${row.id}/delete`, {})
    assert.equal(anonymous.status, 302)
    assert.match(anonymous.location ?? '', /^\/login/)

    const r = await a.client.submit('/account/passkeys', `/account/passkeys/${row.id}/delete`, {})
    assert.equal(r.status, 302)
    assert.equal(r.location, '/account/passkeys')
    assert.match((await a.client.get('/account/passkeys')).text, /Passkey removed\./)
    assert.equal((await db('passkeys').where('user_id', a.id)).length, 0)
    const removed = await events('auth:passkey_removed', a.id)
    assert.equal(removed.length, 1)
    assert.equal(JSON.parse(removed[0]!.details).name, 'Old phone')

    const again = await a.client.submit('/account/passkeys', `/account/passkeys/${row.id}/delete`, {})
    assert.equal(again.status, 404)
    const late = await visitor()
    const signIn = await postJson(late, '/passkeys/login', { response: key.assert(await loginOptions(late)) })
    assert.equal(signIn.status, 401)
    assert.equal(await isLoggedIn(late), false)
  })

  it('a first passkey marks the session as two-factor under a new session id', async () => {
    const { client } = await account('first-factor@example.test')
    assert.equal((await client.get('/vault')).status, 302, 'no factor, no grace period: sent to enrol')
    const options = await postJson(client, '/passkeys/register/options', {}, '/account/passkeys')
    // The session's CSRF token changes with its id (the cookie driver's cookie changes anyway).
    const before = client.csrf()
    const r = await postJson(client, '/passkeys/register', { response: new SoftAuthenticator().attest(options.json()) })
    assert.equal(r.status, 201, r.text)
    await client.get('/account/passkeys')
    assert.notEqual(client.csrf(), before, 'the session was not regenerated with its amr')
    const vault = await client.get('/vault')
    assert.equal(vault.status, 200)
    assert.equal(vault.text, 'the vault')
  })

  it('a password alone cannot add or remove a passkey of a user who has one, nor pass `mfa` by trying', async () => {
    const { client: owner, id } = await account('pwd-only@example.test')
    await addPasskey(owner, 'Mine')
    const row = await db('passkeys').where('user_id', id).first()
    // Someone with the password: a fresh password login (a password confirmation too), amr pwd.
    const thief = new Client(server.url)
    assert.equal((await thief.submit('/login', '/login', { email: 'pwd-only@example.test', password: PASSWORD })).location, '/home')
    const options = await postJson(thief, '/passkeys/register/options', {}, '/account/passkeys')
    assert.equal(options.status, 403, options.text)
    assert.equal(options.json().code, 'E_MFA_REQUIRED')
    assert.equal((await db('auth_challenges').where({ purpose: 'passkey_register', user_id: id })).length, 0)
    // With a valid answer to options the owner asked for: still refused, nothing stored.
    const ownerOptions = (await postJson(owner, '/passkeys/register/options', {}, '/account/passkeys')).json()
    const added = await postJson(thief, '/passkeys/register', { response: new SoftAuthenticator().attest(ownerOptions) }, '/account/passkeys')
    assert.equal(added.status, 403, added.text)
    assert.equal(added.json().code, 'E_MFA_REQUIRED')
    assert.equal((await db('passkeys').where('user_id', id)).length, 1)
    // The form sent to step up, the JSON refused; the passkey stays.
    const form = await thief.submit('/account/passkeys', `/account/passkeys/${row.id}/delete`, {})
    assert.equal(form.status, 302)
    assert.equal(form.location, '/two-factor-challenge')
    const json = await postJson(thief, `/account/passkeys/${row.id}/delete`, {}, '/account/passkeys')
    assert.equal(json.status, 403)
    assert.equal(json.json().code, 'E_MFA_REQUIRED')
    assert.equal((await db('passkeys').where('user_id', id)).length, 1)
    // None of it let the session through `mfa`.
    assert.equal((await thief.get('/vault')).location, '/two-factor-challenge')
    assert.equal((await events('auth:passkey_added', id)).length, 1)
  })

  it('a password-only session of a TOTP user cannot add a passkey', async () => {
    const { client, id } = await account('pwd-totp@example.test')
    // TOTP turned on after this login (or a login the second step never asked of).
    await db('users').where('id', id).update({ two_factor_confirmed_at: new Date() })
    const r = await postJson(client, '/passkeys/register/options', {}, '/account/passkeys')
    assert.equal(r.status, 403, r.text)
    assert.equal(r.json().code, 'E_MFA_REQUIRED')
    const page = await client.post('/passkeys/register/options', { __token: client.csrf() }, { referer: `${server.url}/account/passkeys` })
    assert.equal(page.status, 302)
    assert.equal(page.location, '/two-factor-challenge')
    assert.equal((await db('passkeys').where('user_id', id)).length, 0)
  })

  it('a user with a passkey adds another after stepping up with it, and the step-up is what marks the session', async () => {
    const { client: owner, id } = await account('second-key@example.test')
    const first = await addPasskey(owner)
    const browser = new Client(server.url)
    assert.equal((await browser.submit('/login', '/login', { email: 'second-key@example.test', password: PASSWORD })).location, '/home')
    assert.equal((await postJson(browser, '/passkeys/register/options', {}, '/account/passkeys')).status, 403)
    const step = await postJson(browser, '/passkeys/login', { response: first.assert(await loginOptions(browser, '/account/passkeys')) })
    assert.equal(step.status, 200, step.text)
    await addPasskey(browser, 'Second')
    assert.equal((await db('passkeys').where('user_id', id)).length, 2)
    assert.equal((await browser.get('/vault')).status, 200)
  })

  it('transports: only an array of known AuthenticatorTransport values is stored', async () => {
    const { client, id } = await account('transports@example.test')
    for (const [transports, expected] of [
      ['usb', null],
      [{ 0: 'usb' }, null],
      [42, null],
      [['usb', 'bogus', 'usb', 7, 'nfc', 'a,b'], 'usb,nfc'],
    ] as const) {
      const options = (await postJson(client, '/passkeys/register/options', {}, '/account/passkeys')).json()
      const authenticator = new SoftAuthenticator()
      const answer = authenticator.attest(options)
      ;(answer.response as Record<string, unknown>).transports = transports
      const r = await postJson(client, '/passkeys/register', { response: answer })
      assert.equal(r.status, 201, `${JSON.stringify(transports)}: ${r.text}`)
      const row = await db('passkeys').where('credential_id', authenticator.id).first()
      assert.equal(row.transports, expected, JSON.stringify(transports))
      assert.deepEqual(r.json().passkey.transports, expected === null ? [] : expected.split(','))
    }
    // The list and the next options still work with them.
    assert.equal((await client.get('/account/passkeys', JSON_HEADERS)).json().data.length, 4)
    const again = await postJson(client, '/passkeys/register/options', {}, '/account/passkeys')
    assert.equal(again.status, 200, again.text)
    assert.equal((await db('passkeys').where('user_id', id)).length, 4)
  })

  it('a credential id longer than 512 characters is refused with E_PASSKEY_INVALID, nothing stored', async () => {
    const { client, id } = await account('long-id@example.test')
    const options = (await postJson(client, '/passkeys/register/options', {}, '/account/passkeys')).json()
    const authenticator = new SoftAuthenticator(ORIGIN, RP_ID, false, 400)
    assert.ok(authenticator.id.length > 512)
    const r = await postJson(client, '/passkeys/register', { response: authenticator.attest(options) })
    assert.equal(r.status, 400, r.text)
    assert.equal(r.json().code, 'E_PASSKEY_INVALID')
    assert.equal((await db('passkeys').where('user_id', id)).length, 0)
    // 384 bytes (512 characters): the longest that fits.
    await addPasskey(client, 'Long', new SoftAuthenticator(ORIGIN, RP_ID, false, 384))
    assert.equal((await db('passkeys').where('user_id', id).first()).credential_id.length, 512)
  })

  it('odd types anywhere in a registration body: 400 or 422, never a 500, nothing stored', async () => {
    const { client, id } = await account('odd-register@example.test')
    type Answer = ReturnType<SoftAuthenticator['attest']> & Record<string, any>
    const edits: [string, (a: Answer) => unknown][] = [
      ['attestationObject number', (a) => ((a.response as any).attestationObject = 123, { response: a })],
      ['attestationObject object', (a) => ((a.response as any).attestationObject = { a: 1 }, { response: a })],
      ['attestationObject array', (a) => ((a.response as any).attestationObject = ['x'], { response: a })],
      ['attestationObject huge', (a) => ((a.response as any).attestationObject = 'A'.repeat(200_000), { response: a })],
      ['response array', (a) => ((a as any).response = [a.response.clientDataJSON], { response: a })],
      ['rawId number', (a) => ((a as any).rawId = 5, { response: a })],
      ['id array', (a) => ((a as any).id = [a.id], { response: a })],
      ['id huge', (a) => ((a as any).id = (a as any).rawId = 'A'.repeat(5000), { response: a })],
      ['type object', (a) => ((a as any).type = { x: 1 }, { response: a })],
      ['name array', (a) => ({ response: a, name: ['a'] })],
      ['name object', (a) => ({ response: a, name: { a: 1 } })],
      ['name number', (a) => ({ response: a, name: 5 })],
      ['body array', (a) => [a]],
    ]
    for (const [label, edit] of edits) {
      const options = (await postJson(client, '/passkeys/register/options', {}, '/account/passkeys')).json()
      const r = await postJson(client, '/passkeys/register', edit(new SoftAuthenticator().attest(options) as Answer))
      assert.ok(r.status === 400 || r.status === 422, `${label}: ${r.status} ${r.text.slice(0, 300)}`)
    }
    assert.equal((await db('passkeys').where('user_id', id)).length, 0)
    // Fields the verification does not read, of any type: ignored.
    for (const odd of [{ clientExtensionResults: 'x' }, { clientExtensionResults: [1] }, { authenticatorAttachment: 5 }]) {
      const options = (await postJson(client, '/passkeys/register/options', {}, '/account/passkeys')).json()
      const r = await postJson(client, '/passkeys/register', { response: { ...new SoftAuthenticator().attest(options), ...odd } })
      assert.equal(r.status, 201, `${JSON.stringify(odd)}: ${r.text}`)
    }
  })

  it('odd types anywhere in a sign-in body: 400 or 401, never a 500, nobody logged in', async () => {
    const { client: owner, id } = await account('odd-login@example.test')
    const authenticator = await addPasskey(owner)
    type Answer = ReturnType<SoftAuthenticator['assert']> & Record<string, any>
    const edits: [string, (a: Answer) => unknown][] = [
      ['authenticatorData number', (a) => ((a.response as any).authenticatorData = 5, { response: a })],
      ['authenticatorData huge', (a) => ((a.response as any).authenticatorData = 'A'.repeat(200_000), { response: a })],
      ['signature object', (a) => ((a.response as any).signature = { a: 1 }, { response: a })],
      ['signature array', (a) => ((a.response as any).signature = ['x'], { response: a })],
      ['userHandle number', (a) => ((a.response as any).userHandle = 5, { response: a })],
      ['userHandle object', (a) => ((a.response as any).userHandle = { a: 1 }, { response: a })],
      ['rawId number', (a) => ((a as any).rawId = 5, { response: a })],
      ['id huge', (a) => ((a as any).id = (a as any).rawId = 'A'.repeat(5000), { response: a })],
      ['response array', (a) => ((a as any).response = [1], { response: a })],
      ['body array', (a) => [a]],
    ]
    for (const [label, edit] of edits) {
      const guest = await visitor()
      const r = await postJson(guest, '/passkeys/login', edit(authenticator.assert(await loginOptions(guest)) as Answer))
      assert.ok(r.status === 400 || r.status === 401, `${label}: ${r.status} ${r.text.slice(0, 300)}`)
      assert.equal(await isLoggedIn(guest), false, label)
    }
    // Fields the verification does not read, of any type: ignored.
    for (const odd of [{ clientExtensionResults: [1] }, { clientExtensionResults: 'x' }, { authenticatorAttachment: {} }]) {
      const guest = await visitor()
      const r = await postJson(guest, '/passkeys/login', { response: { ...authenticator.assert(await loginOptions(guest)), ...odd } })
      assert.equal(r.status, 200, `${JSON.stringify(odd)}: ${r.text}`)
    }
    // `next` of any type: ignored, never followed.
    for (const next of [{ a: 1 }, ['/account'], 5, 'x'.repeat(10_000)]) {
      const guest = await visitor()
      const r = await postJson(guest, '/passkeys/login', { response: authenticator.assert(await loginOptions(guest)), next })
      assert.equal(r.status, 200, `${JSON.stringify(next).slice(0, 40)}: ${r.text}`)
      assert.equal(r.json().redirect, '/home')
    }
    assert.ok(Number((await db('passkeys').where('user_id', id).first()).counter) >= 7)
  })

  it('a credential id differing only in case is an unknown passkey (exact match, whatever the collation)', async () => {
    const { client: owner, id } = await account('case@example.test')
    const authenticator = await addPasskey(owner)
    const swapped = authenticator.id.replace(/[a-z]/gi, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()))
    assert.notEqual(swapped, authenticator.id)
    const guest = await visitor()
    const answer = authenticator.assert(await loginOptions(guest))
    const r = await postJson(guest, '/passkeys/login', { response: { ...answer, id: swapped, rawId: swapped } })
    assert.equal(r.status, 401, r.text)
    assert.equal(r.json().code, 'E_PASSKEY_FAILED')
    assert.equal(await isLoggedIn(guest), false)
    assert.equal(Number((await db('passkeys').where('user_id', id).first()).counter), 0)
  })

  it('sign-in options delete the expired sign-in challenges, not other ones', async () => {
    const past = new Date(Date.now() - 60_000)
    const rows = ['a', 'b', 'c'].map((x) => ({ purpose: 'passkey_login', challenge_hash: createHash('sha256').update(`expired-${x}`).digest('hex'), user_id: null, created_at: past, expires_at: past }))
    const mfa = { purpose: 'mfa', challenge_hash: createHash('sha256').update('expired-mfa').digest('hex'), user_id: null, created_at: past, expires_at: past }
    await db('auth_challenges').insert([...rows, mfa])
    const guest = await visitor()
    const options = await loginOptions(guest)
    const left = await db('auth_challenges').whereIn('challenge_hash', [...rows, mfa].map((r) => r.challenge_hash))
    assert.deepEqual(left.map((r) => r.purpose), ['mfa'])
    await db('auth_challenges').where('challenge_hash', mfa.challenge_hash).delete()
    // The new one is there, and still works.
    assert.equal((await db('auth_challenges').where('challenge_hash', createHash('sha256').update(options.challenge).digest('hex'))).length, 1)
  })
})

describe('passkey sign-in options under the per-address budget', () => {
  let server: Server

  // The file's app with its `ip` budget on (3 a minute), served afresh: a new process, so no
  // slot is taken yet; the sign-in challenges the first suite left are removed.
  before(async () => {
    setBudgets(app, { ip: { attempts: 3, minutes: 1 } })
    await db('auth_challenges').where('purpose', 'passkey_login').del()
    server = await app.serve()
  })
  after(() => server?.stop())

  it('each options call takes a slot of `ip`: over it, 429 with Retry-After and no challenge stored', async () => {
    const client = new Client(server.url)
    await client.get('/login')
    const call = () => client.postJson('/passkeys/login/options', {}, { ...JSON_HEADERS, 'x-csrf-token': client.csrf() })
    for (let i = 0; i < 3; i++) assert.equal((await call()).status, 200)
    const count = async () => Number((await db('auth_challenges').where('purpose', 'passkey_login').count({ n: '*' }).first())?.n)
    assert.equal(await count(), 3)
    for (let i = 0; i < 5; i++) {
      const r = await call()
      assert.equal(r.status, 429, r.text)
      assert.equal(r.json().code, 'E_TOO_MANY_REQUESTS')
      assert.match(r.headers.get('retry-after') ?? '', /^[1-9]\d*$/)
    }
    assert.equal(await count(), 3)
  })
})
