/**
 * Black-box: `POST /api/auth/social/@provider` for native apps, with ID tokens a real OpenID
 * Provider issued to the native client (listed in the provider's `audiences`).
 * - A verified address: a JWT with amr ["social"]; the same ID token again: 401 (once only), also
 *   when fired many times at once (exactly one succeeds).
 * - The nonce or its SHA-256 hex; a wrong nonce, a forged HS256 or `alg: none` token, a token for
 *   another audience: 401 E_INVALID_CREDENTIALS. A non-OIDC or unserved provider: 404.
 * - An account with the address but not this identity: 409 E_SOCIAL_LINK_REQUIRED.
 * - A `form_post` callback (Apple's) is CSRF-exempt and goes on as a GET.
 * - `craft social:add` writes the provider and its empty variables.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import type { Knex } from 'knex'
import * as oidc from 'openid-client'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff } from '../helpers/auth-config.js'
import { appDb, b64, decodeJwt, registerUser, sign } from '../helpers/security-kit.js'
import { startOidcPeer, type OidcPeer } from '../helpers/oidc-peer.js'

const APP_URL = 'http://app.example.test'
const NATIVE_REDIRECT = 'http://127.0.0.1:9/native'

describe('native apps: ID token sign-in', () => {
  let app: TestApp
  let server: Server
  let op: OidcPeer
  let db: Knex
  let native: oidc.Configuration
  let other: oidc.Configuration

  before(async () => {
    op = await startOidcPeer([
      { clientId: 'acme-client', clientSecret: 'acme-secret', redirectUris: [`${APP_URL}/auth/acme/callback`] },
      { clientId: 'native-client', clientSecret: 'native-secret', redirectUris: [NATIVE_REDIRECT] },
      { clientId: 'other-client', clientSecret: 'other-secret', redirectUris: [NATIVE_REDIRECT] },
    ], { idTokenClaims: true })
    app = await newApp({ env: { APP_URL, ACME_ISSUER: op.issuer } })
    applyAuthSteps(app)
    applyApiSteps(app)
    budgetsOff(app)
    app.write(
      'config/social.ts',
      `import { env } from 'trowel'
export const SOCIAL = {
  providers: {
    github: { clientId: 'gh', clientSecret: 'gh' },
    acme: { driver: 'oidc', issuer: env('ACME_ISSUER'), clientId: 'acme-client', clientSecret: 'acme-secret', audiences: ['native-client'] },
  },
}
`,
    )
    migrate(app)
    server = await app.serve()
    db = appDb(app)
    const options = { execute: [oidc.allowInsecureRequests] }
    native = await oidc.discovery(new URL(op.issuer), 'native-client', 'native-secret', undefined, options)
    other = await oidc.discovery(new URL(op.issuer), 'other-client', 'other-secret', undefined, options)
  })
  after(async () => {
    await db?.destroy()
    await app?.cleanup()
    await op?.close()
  })

  /** What the native app's SDK would get: an ID token for `account` with `nonce`. */
  async function idToken(account: string, nonce: string, config = native): Promise<string> {
    op.next = account
    const verifier = oidc.randomPKCECodeVerifier()
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: NATIVE_REDIRECT, scope: 'openid email profile', nonce, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' })
    const back = await op.roundTrip(url.href, new Client(op.issuer))
    const tokens = await oidc.authorizationCodeGrant(config, new URL(back, 'http://127.0.0.1:9'), { pkceCodeVerifier: verifier, expectedNonce: nonce, idTokenExpected: true })
    return tokens.id_token!
  }

  const post = (provider: string, body: Record<string, string>) => new Client(server.url).postJson(`/api/auth/social/${provider}`, body)

  it('signs in with an ID token once; the nonce or its SHA-256', async () => {
    op.accounts.set('nat-sub', { email: 'native@example.test', email_verified: true, name: 'Native' })
    const token = await idToken('nat-sub', 'nonce-1')
    const ok = await post('acme', { id_token: token, nonce: 'nonce-1' })
    assert.equal(ok.status, 200, ok.text)
    assert.deepEqual(decodeJwt(ok.json().data)[1].amr, ['social'])
    const again = await post('acme', { id_token: token, nonce: 'nonce-1' })
    assert.equal(again.status, 401)
    assert.equal(again.json().code, 'E_INVALID_CREDENTIALS')
    const hashed = createHash('sha256').update('raw-nonce').digest('hex')
    const second = await post('acme', { id_token: await idToken('nat-sub', hashed), nonce: 'raw-nonce' })
    assert.equal(second.status, 200, second.text)
    assert.equal((await db('users').where('email', 'native@example.test')).length, 1)
  })

  it('one ID token fired many times at once is accepted once', async () => {
    op.accounts.set('burst-sub', { email: 'burst@example.test', email_verified: true, name: 'Burst' })
    const token = await idToken('burst-sub', 'burst-nonce')
    const answers = await Promise.all(Array.from({ length: 10 }, () => post('acme', { id_token: token, nonce: 'burst-nonce' })))
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, ...Array(9).fill(401)])
  })

  it('refuses a wrong nonce, a forged or unsigned token, another audience; 404 off OIDC', async () => {
    op.accounts.set('ref-sub', { email: 'ref@example.test', email_verified: true, name: 'Ref' })
    const good = await idToken('ref-sub', 'n-2')
    assert.equal((await post('acme', { id_token: good, nonce: 'n-other' })).status, 401)
    const [, claims] = decodeJwt(good)
    const forged = sign({ alg: 'HS256', typ: 'JWT' }, claims, 'native-secret', 'sha256')
    assert.equal((await post('acme', { id_token: forged, nonce: 'n-2' })).status, 401)
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`
    assert.equal((await post('acme', { id_token: none, nonce: 'n-2' })).status, 401)
    const theirs = await idToken('ref-sub', 'n-3', other)
    assert.equal((await post('acme', { id_token: theirs, nonce: 'n-3' })).status, 401)
    assert.equal((await db('users').where('email', 'ref@example.test')).length, 0)
    assert.equal((await post('github', { id_token: good, nonce: 'n-2' })).status, 404)
    assert.equal((await post('nope', { id_token: good, nonce: 'n-2' })).status, 404)
    assert.equal((await post('acme', { nonce: 'n-2' })).status, 422)
  })

  it('an account with the address but not this identity: 409 E_SOCIAL_LINK_REQUIRED', async () => {
    await registerUser(server.url, 'taken@example.test', 'Taken')
    op.accounts.set('taken-sub', { email: 'taken@example.test', email_verified: true, name: 'Imposter' })
    const r = await post('acme', { id_token: await idToken('taken-sub', 'n-4'), nonce: 'n-4' })
    assert.equal(r.status, 409, r.text)
    assert.equal(r.json().code, 'E_SOCIAL_LINK_REQUIRED')
    assert.equal(await db('social_identities').where({ subject: 'taken-sub' }).first(), undefined)
  })

  it('a form_post callback (Apple) is CSRF-exempt and continues as a GET, which carries the Lax cookies', async () => {
    op.accounts.set('post-sub', { email: 'post@example.test', email_verified: true, name: 'Post' })
    const browser = new Client(server.url)
    const start = await browser.get('/auth/acme/redirect')
    op.next = 'post-sub'
    const back = new URL(await op.roundTrip(start.location!), APP_URL)
    const form = Object.fromEntries(back.searchParams)
    // The provider's page posts cross-site: no CSRF token, and a Lax cookie would not come along.
    const posted = await browser.request('POST', '/auth/acme/callback', { form, cookies: false })
    assert.equal(posted.status, 303, posted.text)
    const next = new URL(posted.location!, APP_URL)
    assert.equal(next.pathname, '/auth/acme/callback')
    assert.equal(next.searchParams.get('state'), form.state)
    const done = await browser.get(`${next.pathname}${next.search}`)
    assert.equal(done.location, '/home', done.text)
    assert.equal((await browser.get('/home')).status, 200)
  })

  it('craft social:add: an OIDC provider with its issuer as the env default, variables empty in .env; a listed preset only gets its variables', async () => {
    const r = app.craft('social:add', 'corp', '--issuer', 'https://id.corp.test')
    assert.equal(r.code, 0, r.stderr)
    assert.match(app.read('config/social.ts'), /corp: \{ driver: 'oidc', issuer: env\('CORP_ISSUER', "https:\/\/id\.corp\.test"\), clientId: env\('CORP_CLIENT_ID'\), clientSecret: env\('CORP_CLIENT_SECRET'\) \},/)
    assert.match(app.read('.env'), /^CORP_CLIENT_ID=$/m)
    assert.match(app.read('.env'), /^CORP_CLIENT_SECRET=$/m)
    const again = app.craft('social:add', 'github')
    assert.equal(again.code, 0, again.stderr)
    assert.match(app.read('.env'), /^GITHUB_CLIENT_ID=$/m)
    assert.equal(app.craft('social:add', 'corp', '--issuer', 'https://id.corp.test').code, 0, 'listed: unchanged')
    assert.equal(app.read('config/social.ts').match(/corp:/g)?.length, 1)
    const bad = app.craft('social:add', 'nobody')
    assert.notEqual(bad.code, 0)
    assert.match(bad.stderr + bad.stdout, /--issuer/)
  })
})
