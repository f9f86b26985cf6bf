/**
 * Adversarial: the generated web auth pages (with the JWT API installed too) under session
 * fixation, cookie replay, CSRF, logout-by-GET, open redirects, Host poisoning of reset links,
 * reset-token guessing and reuse, e-mail look-alikes and header injection, mass assignment;
 * then enumeration (identical answers for unknown e-mail and wrong password), the shared login
 * throttle and X-Forwarded-For; and finally what the server logged.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client, type HttpResult } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { startSmtpPeer, mailText, type SmtpPeer } from '../helpers/smtp-peer.js'
import { PASSWORD, appDb, assertNoSecrets, cookieValues, JWT_SHAPE, getToken, registerUser, snapshotUsers } from '../helpers/security-kit.js'

const APP_URL = 'http://app.example.test'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const statusMessage = (html: string) => /role="(?:status|alert)">([^<]+)</.exec(html)?.[1] ?? null
const cookieNames = (r: HttpResult) => r.setCookies.map((c) => c.split('=')[0]).sort()

describe('web auth under attack', () => {
  let app: TestApp
  let server: Server
  let proxied: Server
  let smtp: SmtpPeer
  let db: Knex
  /** Every secret the tests handle, checked against the logs at the end. */
  const secrets = new Set<string>([PASSWORD])
  const clients: Client[] = []
  const client = () => {
    const c = new Client(server.url)
    clients.push(c)
    return c
  }

  before(async () => {
    smtp = await startSmtpPeer()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port), APP_URL } })
    applyAuthSteps(app)
    // This suite makes more requests from 127.0.0.1 than the per-IP budget allows in a minute.
    app.edit('config/auth.ts', (t) => t.replace('register: { attempts: 10, minutes: 1 }', 'register: null').replace('reset: { attempts: 10, minutes: 1 }', 'reset: null'))
    applyApiSteps(app)
    migrate(app)
    server = await app.serve()
    proxied = await app.serve({ TRUST_PROXY: 'true' })
    db = appDb(app)
    for (const email of ['fix@example.test', 'redirect@example.test', 'reset@example.test', 'Look@Example.test', 'enum@example.test', 'shared@example.test', 'xff@example.test']) {
      clients.push(await registerUser(server.url, email))
    }
  })
  after(async () => {
    await db?.destroy()
    await app.cleanup()
    await smtp.close()
  })

  async function login(c: Client, email: string, password = PASSWORD, extra: Record<string, string> = {}) {
    return c.submit('/login', '/login', { email, password, ...extra })
  }

  it('session fixation: planted cookies never authenticate; the session id and CSRF token rotate at login', async () => {
    // Forged and foreign cookie values: unsigned, wrong MAC, raw token, another cookie's value.
    const victim = client()
    await login(victim, 'fix@example.test')
    const authValue = victim.cookies.get('trowel_auth')!
    const planted = [
      `trowel_session=attacker-chosen-id; trowel_auth=${randomBytes(32).toString('base64url')}`,
      `trowel_auth=s.${Buffer.from('x').toString('base64url')}.AAAA`,
      `trowel_auth=${decodeURIComponent(authValue).split('.')[1]}`,
      `trowel_session=${authValue}`,
      `trowel_auth=${authValue.replace(/.{10}$/, (tail) => (tail[0] === 'A' ? 'B' : 'A') + tail.slice(1))}`,
    ]
    for (const cookie of planted) {
      const r = await new Client(server.url).request('GET', '/home', { headers: { cookie }, cookies: false })
      assert.equal(r.status, 302, `planted ${cookie.slice(0, 40)} authenticated`)
      assert.equal(r.location, '/login')
      // A server-side session id travels signed (s.<base64url id>.<mac>): look inside, not at the text.
      for (const set of r.setCookies) {
        const value = decodeURIComponent(set.slice(set.indexOf('=') + 1).split(';')[0]!)
        const parts = value.split('.')
        const inner = parts[0] === 's' && parts.length === 3 ? Buffer.from(parts[1]!, 'base64url').toString('utf8') : value
        assert.notEqual(inner, 'attacker-chosen-id', 'the planted id was adopted')
      }
    }
    assert.equal((await victim.get('/home')).status, 200, 'the genuine cookie works (control)')

    // Classic fixation: the attacker's own session (and its CSRF token) handed to the victim.
    const attacker = new Client(server.url)
    await attacker.get('/login')
    const fixedSession = attacker.cookies.get('trowel_session')!
    const fixedToken = attacker.csrf()
    const target = client()
    target.cookies.set('trowel_session', fixedSession)
    const r = await target.post('/login', { __token: fixedToken, email: 'fix@example.test', password: PASSWORD })
    assert.equal(r.location, '/home')
    assert.notEqual(target.cookies.get('trowel_session'), fixedSession, 'the session cookie was not rotated at login')
    const withFixedToken = await target.post('/logout', { __token: fixedToken })
    assert.equal(withFixedToken.status, 419, 'the pre-login (attacker-known) CSRF token still works after login')
    assert.equal((await target.get('/home')).status, 200)
  })

  it('cookie replay after logout: the auth cookie alone, or with the old session, is logged out', async () => {
    const c = client()
    await login(c, 'fix@example.test')
    await c.get('/home')
    const authOnly = `trowel_auth=${c.cookies.get('trowel_auth')}`
    const everything = c.cookieHeader()
    assert.equal((await c.post('/logout', { __token: c.csrf() })).location, '/login')
    for (const cookie of [authOnly, everything]) {
      const r = await new Client(server.url).request('GET', '/home', { headers: { cookie }, cookies: false })
      assert.equal(r.status, 302)
      assert.equal(r.location, '/login')
    }
  })

  it('CSRF: missing, foreign, cross-origin, query-string and wrong-type tokens are 419 and change nothing', async () => {
    const c = client()
    await login(c, 'fix@example.test')
    await c.get('/home')
    const own = c.csrf()
    const foreign = new Client(server.url)
    await foreign.get('/login')
    const foreignToken = foreign.csrf()
    const attempts: [string, Parameters<Client['request']>[2]][] = [
      ['missing', { form: {} }],
      ['empty', { form: { __token: '' } }],
      ['foreign session token', { form: { __token: foreignToken } }],
      ['foreign token in X-CSRF-TOKEN', { form: {}, headers: { 'x-csrf-token': foreignToken } }],
      ['cross-origin, no token', { form: {}, headers: { origin: 'http://evil.test', referer: 'http://evil.test/page' } }],
      ['token as an array', { form: { __token: [own, own] } }],
      ['token of another length', { form: { __token: own + 'x' } }],
      ['JSON body without token', { json: {} }],
      ['text/plain body', { body: `__token=${foreignToken}`, headers: { 'content-type': 'text/plain' } }],
    ]
    for (const [label, options] of attempts) {
      const r = await c.request('POST', '/logout', options)
      assert.ok(r.status === 419 || r.status === 415, `${label}: ${r.status}`)
      assert.equal((await c.get('/home')).status, 200, `${label} logged the user out`)
    }
    const query = await c.request('POST', `/logout?__token=${encodeURIComponent(own)}`, { form: {} })
    assert.equal(query.status, 419, 'token in the query string')
    const reg = await new Client(server.url).request('POST', '/register', { form: { __token: foreignToken, name: 'X', email: 'csrf-new@example.test', password: PASSWORD, password_confirmation: PASSWORD } })
    assert.equal(reg.status, 419)
    assert.equal(await db('users').where('email', 'csrf-new@example.test').first(), undefined)
    assert.equal((await c.post('/logout', { __token: own })).location, '/login', 'the right token logs out (control)')
  })

  it('a cross-site GET cannot log out: GET /logout is 405 and the user stays logged in', async () => {
    const c = client()
    await login(c, 'fix@example.test')
    for (const method of ['GET', 'HEAD']) {
      const r = await c.request(method, '/logout', { headers: { referer: 'http://evil.test/' } })
      assert.equal(r.status, 405, method)
      assert.match(r.headers.get('allow') ?? '', /POST/)
    }
    assert.equal((await c.get('/home')).status, 200)
  })

  it('open redirects: every off-site `next` ends at /home; a same-site path is honoured', async () => {
    const payloads = [
      '//evil.test', '//evil.test/path', '/\\evil.test', '\\\\evil.test', 'https:evil.test', 'https://evil.test',
      '/%2F%2Fevil.test', '/%2f%2fevil.test', '%2F%2Fevil.test', '/%5Cevil.test', 'javascript:alert(1)', 'JaVaScRiPt:alert(1)',
      ' //evil.test', '/\t/evil.test', '/\r\n/evil.test', '///evil.test', 'http:/\\evil.test', '//%09/evil.test', 'data:text/html,x',
    ]
    for (const next of payloads) {
      const page = await new Client(server.url).get(`/login?next=${encodeURIComponent(next)}`)
      assert.doesNotMatch(page.text, /evil\.test|javascript:|data:text/i, `the login page echoed ${JSON.stringify(next)}`)
      const c = client()
      const r = await login(c, 'redirect@example.test', PASSWORD, { next })
      assert.equal(r.status, 302)
      assert.equal(r.location, '/home', `next=${JSON.stringify(next)} → ${r.location}`)
      const failed = await login(new Client(server.url), 'redirect@example.test', 'wrong password!!', { next })
      assert.ok(failed.location === '/login' || failed.location?.startsWith('/login?'), `failure with next=${JSON.stringify(next)} → ${failed.location}`)
      assert.doesNotMatch(failed.location ?? '', /evil|javascript/i)
    }
    const ok = await login(client(), 'redirect@example.test', PASSWORD, { next: '/home?tab=1' })
    assert.equal(ok.location, '/home?tab=1', 'a same-site next is honoured (control)')
    await db('users').where('email', 'redirect@example.test').update({ remember_token: null })
  })

  it('reset links come from APP_URL whatever Host and X-Forwarded-* say', async () => {
    const poison = { host: 'evil.test', 'x-forwarded-host': 'evil.test', 'x-forwarded-proto': 'https', forwarded: 'host=evil.test;proto=https', 'x-original-url': 'http://evil.test/' }
    for (const s of [server, proxied]) {
      const c = new Client(s.url)
      await c.get('/password_reset')
      const before = smtp.messages.length
      const r = await c.post('/password_reset', { __token: c.csrf(), email: 'reset@example.test' }, poison)
      assert.equal(r.status, 302)
      const mail = await smtp.waitFor((m) => smtp.messages.indexOf(m) >= before && m.to.includes('reset@example.test'))
      const text = mailText(mail.raw)
      assert.doesNotMatch(text, /evil\.test/)
      const link = /(https?:\/\/[^\s"<]+)\/change_password\/([A-Za-z0-9_-]{43})/.exec(text)
      assert.ok(link, text)
      assert.equal(link[1], APP_URL)
      secrets.add(link[2]!)
    }
  })

  it('reset tokens: guesses, truncations, replaced and reused tokens all fail; the password is unchanged until a valid one', async () => {
    const c = new Client(server.url)
    const request = async () => {
      const n = smtp.messages.length
      await c.submit('/password_reset', '/password_reset', { email: 'reset@example.test' })
      const mail = await smtp.waitFor((m) => smtp.messages.indexOf(m) >= n && m.to.includes('reset@example.test'))
      return /\/change_password\/([A-Za-z0-9_-]{43})/.exec(mailText(mail.raw))![1]!
    }
    const first = await request()
    // Case and whitespace in the address reach the same account, and mail goes to the stored address.
    const n = smtp.messages.length
    await c.submit('/password_reset', '/password_reset', { email: '  RESET@Example.TEST ' })
    const folded = await smtp.waitFor((m) => smtp.messages.indexOf(m) >= n && m.to.includes('reset@example.test'))
    assert.deepEqual(folded.to, ['reset@example.test'])
    const second = await request()
    secrets.add(first).add(second)
    assert.notEqual(first, second)
    const hashBefore = (await db('users').where('email', 'reset@example.test').first()).password
    const NEW = 'a brand new passphrase'
    const guesses = [
      first, // replaced by the second request
      second.slice(0, 42), second.slice(0, 20), second + 'A', second.toUpperCase(), second.replace(/^./, (ch) => (ch === 'A' ? 'B' : 'A')),
      randomBytes(32).toString('base64url'), '0'.repeat(43), "' OR '1'='1", '../../etc/passwd', '',
    ]
    for (const token of guesses) {
      const r = await c.request('POST', '/change_password', { form: { __token: c.csrf(), token, password: NEW, password_confirmation: NEW } })
      assert.equal(r.status, 302, `token ${token.slice(0, 10)}: ${r.status}`)
      assert.notEqual(r.location, '/login', `token ${JSON.stringify(token.slice(0, 12))} was accepted`)
      await c.get(r.location!.startsWith('/') ? r.location! : '/password_reset')
    }
    assert.equal((await db('users').where('email', 'reset@example.test').first()).password, hashBefore, 'a guessed token changed the password')
    const apiToken = await getToken(server.url, 'reset@example.test')
    assert.equal((await new Client(server.url).postJson('/api/reauth', { token: apiToken })).status, 200, 'reauth works before the reset (control)')
    const stolen = await getToken(server.url, 'reset@example.test')
    const good = await c.submit(`/change_password/${second}`, `/change_password/${second}`, { password: NEW, password_confirmation: NEW })
    assert.equal(good.location, '/login', 'the valid token works (control)')
    // The reset revokes the API token too: a stolen JWT cannot be reauthed afterwards.
    assert.equal((await db('users').where('email', 'reset@example.test').first()).api_token, null)
    assert.equal((await new Client(server.url).postJson('/api/reauth', { token: stolen })).status, 401, 'a JWT issued before the reset was reauthed')
    const reuse = await c.submit(`/change_password/${second}`, `/change_password/${second}`, { password: 'yet another passphrase', password_confirmation: 'yet another passphrase' })
    assert.notEqual(reuse.location, '/login', 'a used token worked twice')
    secrets.add(NEW)
    assert.equal((await login(new Client(server.url), 'reset@example.test', NEW)).location, '/home')
  })

  it('e-mail case, whitespace and look-alikes: one account per address; look-alikes never get its mail or its session', async () => {
    const variants = ['look@example.test', ' LOOK@EXAMPLE.TEST ', '\tLook@Example.test\n']
    for (const email of variants) {
      const c = new Client(server.url)
      const r = await c.submit('/register', '/register', { name: 'Dup', email, password: PASSWORD, password_confirmation: PASSWORD })
      assert.equal(r.location, '/register', `${JSON.stringify(email)} registered twice`)
    }
    assert.equal((await db('users').whereRaw('lower(email) = ?', ['look@example.test'])).length, 1)
    assert.equal((await login(new Client(server.url), '  LOOK@example.TEST ')).location, '/home', 'case and spaces still log in')
    const lookAlikes = ['lооk@example.test' /* Cyrillic o */, 'look@exаmple.test' /* Cyrillic a */, 'look@example.test\u200b', 'look\u00a0@example.test', 'look＠example.test', 'LOOK@EXAMPLE.TEST.', 'look@example.test%00', 'look@example.test\u0000']
    for (const email of lookAlikes) {
      const reg = await new Client(server.url).submit('/register', '/register', { name: 'Eve', email, password: PASSWORD + '!', password_confirmation: PASSWORD + '!' })
      assert.ok(reg.location === '/register' || reg.location === '/home', `${email} → ${reg.location}`)
      const c = new Client(server.url)
      const r = await login(c, email)
      if (r.location === '/home') {
        const home = await c.get('/home')
        assert.doesNotMatch(home.text, /Look@Example\.test/i, `${JSON.stringify(email)} logged into the original account`)
      }
      await new Client(server.url).submit('/password_reset', '/password_reset', { email })
    }
    await sleep(300)
    // Reset mails (the account's own verification mail at registration is expected).
    const mine = smtp.messages.filter((m) => m.to.some((t) => t.toLowerCase() === 'look@example.test') && /change_password\//.test(mailText(m.raw)))
    assert.equal(mine.length, 0, 'a look-alike address triggered mail to the original account')
    for (const m of smtp.messages) for (const to of m.to) assert.equal(to, to.trim())
  })

  it('header injection in e-mail fields never adds a recipient or a header', async () => {
    const evil = 'attacker@evil.test'
    const injected = [
      `reset@example.test\r\nBcc: ${evil}`, `reset@example.test\nBcc: ${evil}`, `reset@example.test%0d%0aBcc:${evil}`,
      `"reset@example.test\r\nBcc: ${evil}"`, `reset@example.test, ${evil}`, `reset@example.test;${evil}`, `${evil}\r\nTo: reset@example.test`,
    ]
    for (const email of injected) {
      const c = new Client(server.url)
      const r = await c.submit('/password_reset', '/password_reset', { email })
      assert.equal(r.status, 302)
      const reg = await new Client(server.url).submit('/register', '/register', { name: 'Inj', email, password: PASSWORD, password_confirmation: PASSWORD })
      assert.equal(reg.location, '/register', `registered ${JSON.stringify(email)}`)
    }
    // A name with CRLF is stored as text and must not become a header of the reset mail.
    const c = new Client(server.url)
    const reg = await c.submit('/register', '/register', { name: `Mallory\r\nBcc: ${evil}\r\nSubject: pwned`, email: 'mallory@example.test', password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(reg.status, 302)
    const n = smtp.messages.length
    await new Client(server.url).submit('/password_reset', '/password_reset', { email: 'mallory@example.test' })
    if (reg.location === '/home') {
      const mail = await smtp.waitFor((m) => smtp.messages.indexOf(m) >= n && m.to.includes('mallory@example.test'))
      const head = mail.raw.slice(0, mail.raw.indexOf('\r\n\r\n'))
      assert.doesNotMatch(head, /^(bcc|subject: pwned)/im)
    }
    await sleep(300)
    for (const m of smtp.messages) assert.ok(!m.to.includes(evil), `mail went to ${evil}`)
  })

  it('mass assignment: id, api_token, remember_token, is_admin, password hash and timestamps are not fillable', async () => {
    const c = new Client(server.url)
    await c.get('/register')
    const r = await c.post('/register', {
      __token: c.csrf(), name: 'Mass', email: 'mass@example.test', password: PASSWORD, password_confirmation: PASSWORD,
      id: '424242', api_token: 'a'.repeat(64), remember_token: 'r'.repeat(40), is_admin: '1', created_at: '2000-01-01', updated_at: '2000-01-01',
    })
    assert.equal(r.location, '/home', 'unknown fields must be ignored, not crash the insert')
    const row = await db('users').where('email', 'mass@example.test').first()
    assert.notEqual(Number(row.id), 424242)
    assert.equal(row.api_token, null)
    assert.equal(row.remember_token, null)
    assert.equal('is_admin' in row, false)
    assert.match(row.password, /^\$argon2id\$/)
    assert.notEqual(new Date(row.created_at).getUTCFullYear(), 2000)
    const json = await new Client(server.url).postJson('/api/auth', { username: 'mass@example.test', password: PASSWORD, id: 1, api_token: 'x' })
    assert.equal(json.status, 200)
    assert.notEqual((await db('users').where('email', 'mass@example.test').first()).api_token, 'x')
  })

  it('enumeration: login, reset and /api/auth answer unknown e-mail and wrong password identically', async () => {
    const WRONG = 'definitely not it'
    const pairs: [string, string][] = [['enum@example.test', WRONG], ['nobody-here@example.test', WRONG]]
    const web = []
    for (const [email, password] of pairs) {
      const c = new Client(server.url)
      const r = await login(c, email, password)
      const page = await c.get('/login')
      web.push({ status: r.status, location: r.location, cookies: cookieNames(r), message: statusMessage(page.text), email: /name="email"[^>]*value="([^"]*)"/.exec(page.text)?.[1]?.toLowerCase().replace(/nobody-here|enum/, 'X') })
    }
    assert.deepEqual(web[0], web[1])
    assert.equal(web[0]!.message, 'The email or password is incorrect.')
    const reset = []
    for (const email of ['enum@example.test', 'nobody-here@example.test']) {
      const c = new Client(server.url)
      const r = await c.submit('/password_reset', '/password_reset', { email })
      reset.push({ status: r.status, location: r.location, cookies: cookieNames(r), message: statusMessage((await c.get('/password_reset')).text) })
    }
    assert.deepEqual(reset[0], reset[1])
    const api = []
    for (const [email, password] of pairs) {
      const r = await new Client(server.url).postJson('/api/auth', { username: email, password })
      api.push({ status: r.status, body: r.text, cookies: cookieNames(r), auth: r.headers.get('www-authenticate') })
    }
    assert.deepEqual(api[0], api[1])
    assert.equal(api[0]!.status, 401)
    const json = []
    for (const [email, password] of pairs) {
      const c = new Client(server.url)
      await c.get('/login')
      const r = await c.request('POST', '/login', { json: { email, password }, headers: { accept: 'application/json', 'x-csrf-token': c.csrf() } })
      json.push({ status: r.status, body: r.text, cookies: cookieNames(r) })
    }
    assert.deepEqual(json[0], json[1])
  })

  it('throttling: one failure budget across /login and /api/auth, keyed by lower(trimmed e-mail)', async () => {
    const c = new Client(server.url)
    await login(c, 'shared@example.test', 'wrong one 1')
    await login(c, ' SHARED@example.test', 'wrong one 2')
    assert.equal((await new Client(server.url).postJson('/api/auth', { username: 'Shared@Example.test', password: 'wrong one 3' })).status, 401)
    await login(c, 'shared@example.test ', 'wrong one 4')
    assert.equal((await new Client(server.url).postJson('/api/auth', { username: 'shared@example.test', password: 'wrong one 5' })).status, 401)
    const api = await new Client(server.url).postJson('/api/auth', { username: 'shared@example.test', password: PASSWORD })
    assert.equal(api.status, 429, 'the sixth attempt (right password) on the API was not throttled')
    assert.equal(api.json().code, 'E_TOO_MANY_REQUESTS')
    assert.ok(Number(api.headers.get('retry-after')) > 0)
    assert.doesNotMatch(api.text, JWT_SHAPE)
    const web = await login(new Client(server.url), 'shared@example.test')
    assert.equal(web.location, '/login', 'the web form let a throttled account in')
  })

  it('X-Forwarded-For is ignored unless TRUST_PROXY is set', async () => {
    // Not trusted: rotating the header does not open a new budget.
    for (let i = 0; i < 5; i++) {
      const r = await new Client(server.url).postJson('/api/auth', { username: 'xff@example.test', password: `wrong ${i} wrong` }, { 'x-forwarded-for': `10.0.0.${i}` })
      assert.equal(r.status, 401)
    }
    const spoofed = await new Client(server.url).postJson('/api/auth', { username: 'xff@example.test', password: PASSWORD }, { 'x-forwarded-for': '10.9.9.9' })
    assert.equal(spoofed.status, 429, 'a forged X-Forwarded-For escaped the throttle')
    // Trusted (TRUST_PROXY=true, one proxy): the client is the entry the proxy appended, the last
    // one; whatever the client wrote before it is not believed, so rotating it opens no budget.
    for (let i = 0; i < 5; i++) {
      await new Client(proxied.url).postJson('/api/auth', { username: 'xff@example.test', password: `wrong ${i} wrong` }, { 'x-forwarded-for': `10.0.0.${i}, 203.0.113.7` })
    }
    const blocked = await new Client(proxied.url).postJson('/api/auth', { username: 'xff@example.test', password: PASSWORD }, { 'x-forwarded-for': '10.9.9.9, 203.0.113.7' })
    assert.equal(blocked.status, 429, 'a forged first X-Forwarded-For hop escaped the throttle behind a proxy')
    const other = await new Client(proxied.url).postJson('/api/auth', { username: 'xff@example.test', password: PASSWORD }, { 'x-forwarded-for': '198.51.100.2' })
    assert.equal(other.status, 200, 'behind a trusted proxy each client has its own budget')
    secrets.add(other.json().data)
    const find = () => proxied.output().split('\n').find((l) => / auth\.token_issued /.test(l) && l.includes('198.51.100.2'))
    for (let i = 0; i < 100 && !find(); i++) await new Promise((r) => setTimeout(r, 50)) // the log arrives through a pipe
    assert.ok(find(), 'the trusted client address is the one logged')
  })

  it('logs: logins, failures and logouts carry time, ip and user id; never a password, token or cookie value', async () => {
    // The log arrives through a pipe: wait until it has each event, and read whole lines only.
    const events = ['auth.login', 'auth.logout', 'auth.registered', 'auth.password_reset', 'auth.throttled']
    const logged = await server.waitForOutput((o) => events.every((e) => o.includes(` ${e} `)))
    const out = logged.slice(0, logged.lastIndexOf('\n') + 1)
    const lines = out.split('\n')
    const ofEvent = (e: string) => lines.filter((l) => l.includes(` ${e} `)).map((l) => ({ line: l, fields: JSON.parse(l.slice(l.indexOf('{'))) }))
    for (const event of ['auth.login', 'auth.logout', 'auth.registered', 'auth.password_reset']) {
      const found = ofEvent(event)
      assert.ok(found.length > 0, `no ${event} line`)
      for (const { line, fields } of found) {
        assert.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z /, line)
        assert.ok(fields.user_id !== undefined && fields.user_id !== null, `${event} without user_id: ${line}`)
        assert.match(String(fields.ip), /127\.0\.0\.1/, line)
      }
    }
    const failures = ofEvent('auth.login_failed')
    assert.ok(failures.length >= 5)
    for (const { fields } of failures) assert.match(String(fields.ip), /127\.0\.0\.1/)
    assert.ok(ofEvent('auth.throttled').length > 0, 'throttling is logged')
    for (const c of clients) for (const v of cookieValues(c)) secrets.add(v)
    assertNoSecrets(out + proxied.output(), secrets)
    assert.doesNotMatch(out + proxied.output(), JWT_SHAPE)
    assert.doesNotMatch(out, /wrong one \d|definitely not it|a brand new passphrase/)
  })

  it('nothing above corrupted the users table: one row per registered address', async () => {
    const rows = JSON.parse(await snapshotUsers(db)) as { email: string }[]
    const lowered = rows.map((r) => r.email.toLowerCase())
    assert.equal(new Set(lowered).size, lowered.length)
    for (const r of rows) assert.equal(r.email, r.email.trim())
  })
})
