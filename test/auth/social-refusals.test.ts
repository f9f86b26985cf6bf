/**
 * Black-box: the web callback of social login refuses every defective answer of an OpenID
 * provider. The provider is the test's forge (test/helpers/forge-peer.ts: real HTTP, real RS256
 * signatures) told to mint an ID token from another issuer, for another audience, expired, signed
 * by another key, unsigned (`alg: none`), with a wrong `nonce`, or to answer `access_denied`; and
 * the same callback URL is replayed. Each refusal is 302 /login with the one message, leaves no
 * user and no identity, and consumes the state. With `registration` off, an unknown subject is
 * sent to /login with its own message, while a linked one still logs in.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff } from '../helpers/auth-config.js'
import { appDb } from '../helpers/security-kit.js'
import { startForgePeer, type ForgeDefect, type ForgePeer } from '../helpers/forge-peer.js'

const APP_URL = 'http://app.example.test'
const FAILED = 'The sign-in could not be completed. Please try again.'
const CLOSED = 'No account uses this sign-in, and new accounts cannot be created here.'

describe('social login refuses a defective provider answer', () => {
  let app: TestApp
  let server: Server
  let forge: ForgePeer
  let db: Knex

  before(async () => {
    forge = await startForgePeer({ clientId: 'forge-client', clientSecret: 'forge-secret' })
    app = await newApp({ env: { APP_URL, FORGE_ISSUER: forge.issuer } })
    applyAuthSteps(app)
    budgetsOff(app)
    app.write(
      'config/social.ts',
      `import { env } from 'trowel'
export const SOCIAL = {
  providers: {
    forge: { driver: 'oidc', label: 'Forge', issuer: env('FORGE_ISSUER'), clientId: 'forge-client', clientSecret: 'forge-secret' },
  },
  state_minutes: 10,
  link_minutes: 10,
}
`,
    )
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app?.cleanup()
    await forge?.close()
  })

  async function callbackFor(browser: Client, subject: string, defect: ForgeDefect = 'none'): Promise<string> {
    forge.accounts.set(subject, { email: `${subject}@example.test`, email_verified: true, name: subject })
    forge.next = subject
    forge.defect = defect
    const r = await browser.get('/auth/forge/redirect')
    assert.equal(r.status, 302, r.text)
    assert.ok(r.location?.startsWith(forge.issuer), r.location ?? '')
    return forge.roundTrip(r.location!)
  }

  async function stored(): Promise<string> {
    const count = async (table: string, where: Record<string, string> = {}) => Number((await db(table).where(where).count<{ n: number }[]>({ n: '*' }))[0]!.n)
    return `users ${await count('users')}, identities ${await count('social_identities')}, states ${await count('social_pending', { kind: 'state' })}`
  }

  async function expectRefused(browser: Client, path: string, message = FAILED): Promise<void> {
    const r = await browser.get(path)
    assert.equal(r.status, 302, r.text)
    assert.equal(r.location, '/login', path)
    const page = await browser.get('/login')
    assert.ok(page.text.includes(message), `the message: ${message}`)
    assert.equal((await browser.get('/home')).status === 200, false, 'not logged in')
  }

  it('the forge works: a good ID token logs in; the same callback URL again is refused', async () => {
    const browser = new Client(server.url)
    const back = await callbackFor(browser, 'good-sub')
    const r = await browser.get(back)
    assert.equal(r.location, '/home', r.text)
    assert.equal((await browser.get('/home')).status, 200)
    const before = await stored()
    assert.match(before, /states 0$/, 'the state is consumed')
    // The code replayed, in this browser (logged out first) and in another.
    await browser.post('/logout', { __token: browser.csrf() })
    await expectRefused(browser, back)
    await expectRefused(new Client(server.url), back)
    assert.equal(await stored(), before)
  })

  it('a key rotation: a token under a new kid fetches the keys again and logs in', async () => {
    await forge.rotate()
    const browser = new Client(server.url)
    assert.equal((await browser.get(await callbackFor(browser, 'good-sub'))).location, '/home')
  })

  const defects: [ForgeDefect, string][] = [
    ['issuer', 'an ID token from another issuer'],
    ['audience', 'an ID token for another audience'],
    ['expired', 'an expired ID token'],
    ['key', 'an ID token signed by another key'],
    ['alg_none', 'an unsigned ID token (alg: none)'],
    ['nonce', 'an ID token with another nonce'],
    ['denied', 'error=access_denied from the provider'],
  ]
  for (const [defect, what] of defects) {
    it(`refuses ${what}: nothing stored, the state consumed`, async () => {
      const before = await stored()
      const failures = Number((await db('auth_events').where('type', 'auth:login_failed').count<{ n: number }[]>({ n: '*' }))[0]!.n)
      const browser = new Client(server.url)
      const back = await callbackFor(browser, `${defect}-sub`, defect)
      await expectRefused(browser, back)
      assert.equal(await stored(), before, 'no user, no identity, no state left')
      assert.equal(await db('users').where('email', `${defect}-sub@example.test`).first(), undefined)
      // Audit rows are written after the answer: wait for it a little.
      let after = failures
      for (let i = 0; i < 200 && after <= failures; i++) {
        after = Number((await db('auth_events').where('type', 'auth:login_failed').count<{ n: number }[]>({ n: '*' }))[0]!.n)
        if (after <= failures) await new Promise((r) => setTimeout(r, 50))
      }
      assert.ok(after > failures, 'auth:login_failed')
      // Told to behave again, the provider cannot reuse the consumed state.
      forge.defect = 'none'
      await expectRefused(browser, back)
    })
  }

  it('with registration off, an unknown subject is sent to /login with a message; a linked one still logs in', async () => {
    await server.stop()
    app.edit('config/auth.ts', (t) => t.replace("features: ['registration', ", 'features: ['))
    assert.ok(!app.read('config/auth.ts').includes("'registration'"), 'registration is off')
    server = await app.serve()
    const before = await stored()
    const browser = new Client(server.url)
    await expectRefused(browser, await callbackFor(browser, 'newcomer-sub'), CLOSED)
    assert.equal(await stored(), before, 'no account made')
    const known = new Client(server.url)
    assert.equal((await known.get(await callbackFor(known, 'good-sub'))).location, '/home')
  })
})
