/**
 * Black-box: password-reset expiry in fractional minutes, and the `next` redirect after login.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newApp, installAuth, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'

const PASSWORD = 'correct horse battery staple'

describe('reset expiry and next', () => {
  let app: TestApp
  let server: Server
  let lastMail = ''

  before(async () => {
    app = await newApp({ env: { MAIL_DRIVER: 'log' } })
    installAuth(app)
    // This suite makes more requests from 127.0.0.1 than the per-IP budget allows in a minute.
    // Links live 9 s: the first test waits that out, the others use a link within it, a few
    // requests on a machine that may be busy.
    app.edit('config/auth.ts', (t) => t.replace('reset: { attempts: 10, minutes: 1 }', 'reset: null'))
    app.edit('config/auth.ts', (t) => t.replace('password_reset_expiration: 1440', 'password_reset_expiration: 0.15'))
    migrate(app)
    server = await app.serve()
    const r = await new Client(server.url).submit('/register', '/register', { name: 'Exp', email: 'exp@example.test', password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home')
  })
  after(() => app.cleanup())

  async function requestLink(): Promise<string> {
    const before = app.exists('storage/logs/mail.log') ? app.read('storage/logs/mail.log').length : 0
    await new Client(server.url).submit('/password_reset', '/password_reset', { email: 'exp@example.test' })
    for (let i = 0; i < 50; i++) {
      const log = app.exists('storage/logs/mail.log') ? app.read('storage/logs/mail.log').slice(before) : ''
      const m = /\/change_password\/([A-Za-z0-9_-]{43})/.exec(log)
      if (m) {
        lastMail = log
        return m[1]!
      }
      await new Promise((r) => setTimeout(r, 100))
    }
    throw new Error('no reset mail in storage/logs/mail.log')
  }

  it('a link older than password_reset_expiration (0.15 min = 9 s) is refused', async () => {
    const token = await requestLink()
    // The mail says how long the link lives in words, not in (fractional) minutes.
    assert.match(lastMail, /expires in 9 seconds\./)
    assert.doesNotMatch(lastMail, /0\.15 minutes/)
    await new Promise((r) => setTimeout(r, 9500))
    const client = new Client(server.url)
    const r = await client.submit(`/change_password/${token}`, `/change_password/${token}`, { password: 'a new passphrase here', password_confirmation: 'a new passphrase here' })
    assert.equal(r.status, 302)
    assert.equal(r.location, `/change_password/${token}`)
    assert.match((await client.get(r.location!)).text, /invalid or has expired/)
    const login = await new Client(server.url).submit('/login', '/login', { email: 'exp@example.test', password: PASSWORD })
    assert.equal(login.location, '/home', 'the old password still works')
  })

  it('a fresh link works once; a second request replaces the first', async () => {
    const first = await requestLink()
    const second = await requestLink()
    assert.notEqual(first, second)
    const stale = await new Client(server.url).submit(`/change_password/${first}`, `/change_password/${first}`, { password: 'another good passphrase', password_confirmation: 'another good passphrase' })
    assert.notEqual(stale.location, '/login', 'the replaced link is dead')
    const ok = await new Client(server.url).submit(`/change_password/${second}`, `/change_password/${second}`, { password: 'another good passphrase', password_confirmation: 'another good passphrase' })
    assert.equal(ok.location, '/login')
  })

  it('the token can also come as a field on POST /change_password', async () => {
    const token = await requestLink()
    const client = new Client(server.url)
    await client.get(`/change_password/${token}`)
    const r = await client.post('/change_password', { __token: client.csrf(), token, password: 'third good passphrase', password_confirmation: 'third good passphrase' })
    assert.equal(r.location, '/login')
  })

  it('login honours a same-site next and ignores an off-site one', async () => {
    const client = new Client(server.url)
    const wanted = await client.get('/home')
    assert.equal(wanted.location, '/login')
    await client.get('/login?next=%2Fhome%3Ftab%3D2')
    const ok = await client.post('/login', { __token: client.csrf(), email: 'exp@example.test', password: 'third good passphrase', next: '/home?tab=2' })
    assert.equal(ok.location, '/home?tab=2')
    const evil = new Client(server.url)
    for (const next of ['//evil.test', 'https://evil.test/x', '/\\evil.test', 'javascript:alert(1)']) {
      await evil.get('/login')
      const r = await evil.post('/login', { __token: evil.csrf(), email: 'exp@example.test', password: 'third good passphrase', next })
      assert.equal(r.location, '/home', next)
      await evil.post('/logout', { __token: (await evil.get('/home'), evil.csrf()) })
    }
  })
})
