/**
 * Black-box: the API's second step. POST /api/auth for a user with TOTP answers 401
 * `E_MFA_REQUIRED` with an `mfa_token` and no token; POST /api/auth/two-factor with it and a code
 * (or a recovery code) answers `{"data": "<JWT>"}` whose `amr` is ["pwd","otp"] (a password-only
 * token's is ["pwd"]; reauth keeps it). A wrong code is 422 and the mfa_token stays usable; 5
 * wrong codes a minute are 429; a right answer uses the mfa_token up (of 20 at once exactly one
 * gets a token). `mfa:jwt` lets through tokens with a second factor only. Run with the token
 * column and with token families (`store: 'table'`).
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import * as OTPAuth from 'otpauth'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff } from '../helpers/auth-config.js'
import { PASSWORD, appDb, decodeJwt, sha256 } from '../helpers/security-kit.js'

const API_ROUTES = `import { Route } from 'trowel'

export const ROUTES = [
  Route.get('/me', ({ request }) => ({ data: request.user() })).name('api.me'),
  Route.get('/secure', () => ({ data: 'secure' })).middleware(['mfa:jwt']),
]
`

function totp(secret: string) {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' })
}

/** Newer than the enrolment's code, inside the accepted window. */
const nextCode = (secret: string) => totp(secret).generate({ timestamp: Date.now() + 30_000 })

for (const store of ['column', 'table'] as const) {
  describe(`the API's second step (store: ${store})`, () => {
    let app: TestApp
    let server: Server
    let db: Knex

    before(async () => {
      app = await newApp({ env: { MAIL_DRIVER: 'log' } })
      applyAuthSteps(app)
      if (store === 'table') {
        const r = app.craft('api:install', '--store', 'table')
        assert.equal(r.code, 0, r.stderr)
      }
      applyApiSteps(app, { apiRoutes: API_ROUTES })
      budgetsOff(app, ['two_factor'])
      migrate(app)
      server = await app.serve()
      db = appDb(app)
    })
    after(async () => {
      await db?.destroy()
      await app?.cleanup()
    })

    const post = (path: string, body: unknown) => new Client(server.url).postJson(path, body)
    const bearer = (token: string, path: string) => new Client(server.url).get(path, { authorization: `Bearer ${token}` })

    /** Registers `email` and turns TOTP on through the account page; the secret and recovery codes. */
    async function enrol(email: string): Promise<{ secret: string; codes: string[]; client: Client }> {
      const client = new Client(server.url)
      await client.submit('/register', '/register', { name: 'Api Two', email, password: PASSWORD, password_confirmation: PASSWORD })
      await db('users').where('email', email).update({ email_verified_at: new Date() })
      await client.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
      const page = await client.get('/account/two-factor')
      const secret = /aria-label="Setup key ([A-Z2-7]+)"/.exec(page.text)?.[1]
      assert.ok(secret, page.text)
      const r = await client.post('/account/two-factor', { __token: client.csrf(), code: totp(secret).generate() }, { accept: 'application/json' })
      assert.equal(r.status, 200, r.text)
      assert.equal(r.json().data.recovery_codes, undefined, 'not in the answer of the POST')
      // The codes are shown once by the page the POST names.
      const shown = await client.get(r.json().data.recovery_codes_url, { accept: 'application/json' })
      return { secret, codes: shown.json().data.recovery_codes, client }
    }

    async function mfaToken(email: string): Promise<string> {
      const r = await post('/api/auth', { username: email, password: PASSWORD })
      assert.equal(r.status, 401, r.text)
      return r.json().mfa_token
    }

    it('a user without TOTP gets a token with amr ["pwd"]; mfa:jwt refuses it (grace_days 0)', async () => {
      const client = new Client(server.url)
      await client.submit('/register', '/register', { name: 'Plain', email: 'plain.api@example.test', password: PASSWORD, password_confirmation: PASSWORD })
      const r = await post('/api/auth', { username: 'plain.api@example.test', password: PASSWORD })
      assert.equal(r.status, 200)
      assert.deepEqual(Object.keys(r.json()), ['data'])
      const [, payload] = decodeJwt(r.json().data)
      assert.deepEqual(payload.amr, ['pwd'])
      assert.equal((await bearer(r.json().data, '/api/me')).status, 200)
      const secure = await bearer(r.json().data, '/api/secure')
      assert.equal(secure.status, 403)
      assert.equal(secure.json().code, 'E_MFA_REQUIRED')
    })

    it('a password change or "log out other devices" between the two steps ends the mfa_token', async () => {
      const email = 'changed.api@example.test'
      const { secret, client: owner } = await enrol(email)
      const id = Number((await db('users').where('email', email).first('id')).id)
      const first = await mfaToken(email)
      await owner.get('/account')
      const newPassword = `${PASSWORD}-changed`
      const changed = await owner.post('/account/password', { __token: owner.csrf(), current_password: PASSWORD, password: newPassword, password_confirmation: newPassword })
      assert.equal(changed.status, 302)
      assert.equal((await db('auth_challenges').where('user_id', id)).length, 0, 'the mfa_token outlived the password change')
      const r = await post('/api/auth/two-factor', { mfa_token: first, code: nextCode(secret) })
      assert.equal(r.status, 422, r.text)
      assert.ok(r.json().errors.mfa_token)

      const second = (await post('/api/auth', { username: email, password: newPassword })).json().mfa_token as string
      assert.ok(second)
      await owner.get('/account/devices')
      const out = await owner.post('/account/devices/revoke-others', { __token: owner.csrf() })
      assert.equal(out.status, 302)
      const r2 = await post('/api/auth/two-factor', { mfa_token: second, code: nextCode(secret) })
      assert.equal(r2.status, 422, r2.text)
      assert.ok(r2.json().errors.mfa_token)
    })

    it('a user with TOTP: 401 E_MFA_REQUIRED with an mfa_token, then the code gives a token with amr ["pwd","otp"]', async () => {
      const email = 'flow.api@example.test'
      const { secret } = await enrol(email)
      const first = await post('/api/auth', { username: email, password: PASSWORD })
      assert.equal(first.status, 401)
      const body = first.json()
      assert.equal(body.code, 'E_MFA_REQUIRED')
      assert.equal(typeof body.message, 'string')
      assert.equal(body.data, undefined, 'no token before the second step')
      assert.match(body.mfa_token, /^[A-Za-z0-9_-]{32,}$/)
      assert.equal(first.setCookies.length, 0)
      // Stored as its SHA-256 only.
      const row = await db('auth_challenges').where({ challenge_hash: sha256(body.mfa_token) }).first()
      assert.ok(row, 'the mfa_token is stored hashed')
      assert.equal(row.purpose, 'mfa')

      // A wrong code: 422 on `code`, and the mfa_token still works.
      const wrong = await post('/api/auth/two-factor', { mfa_token: body.mfa_token, code: '000000' })
      assert.equal(wrong.status, 422)
      assert.equal(wrong.json().code, 'E_VALIDATION')
      assert.ok(wrong.json().errors.code)

      const ok = await post('/api/auth/two-factor', { mfa_token: body.mfa_token, code: nextCode(secret) })
      assert.equal(ok.status, 200, ok.text)
      assert.deepEqual(Object.keys(ok.json()), ['data'])
      const token = ok.json().data as string
      const [header, payload] = decodeJwt(token)
      assert.equal(header.alg, 'HS512')
      assert.deepEqual(payload.amr, ['pwd', 'otp'])
      if (store === 'table') assert.equal(typeof payload.fid, 'string')
      assert.equal((await bearer(token, '/api/me')).json().data.email, email)
      assert.equal((await bearer(token, '/api/secure')).status, 200)

      // The mfa_token was used up.
      const reused = await post('/api/auth/two-factor', { mfa_token: body.mfa_token, code: nextCode(secret) })
      assert.equal(reused.status, 422)
      assert.ok(reused.json().errors.mfa_token)

      // Reauth keeps the amr of the token it replaces.
      const again = await post('/api/reauth', { token })
      assert.equal(again.status, 200, again.text)
      assert.deepEqual(decodeJwt(again.json().data)[1].amr, ['pwd', 'otp'])
      assert.equal((await bearer(again.json().data, '/api/secure')).status, 200)
    })

    it('a recovery code works once; bad input is 422', async () => {
      const email = 'recovery.api@example.test'
      const { codes } = await enrol(email)
      let r = await post('/api/auth/two-factor', { mfa_token: await mfaToken(email), recovery_code: codes[0] })
      assert.equal(r.status, 200, r.text)
      assert.deepEqual(decodeJwt(r.json().data)[1].amr, ['pwd', 'otp'])
      const token = await mfaToken(email)
      r = await post('/api/auth/two-factor', { mfa_token: token, recovery_code: codes[0] })
      assert.equal(r.status, 422)
      assert.ok(r.json().errors.recovery_code)
      for (const bad of [{}, { mfa_token: token }, { code: '123456' }, { mfa_token: 'x'.repeat(43), code: '123456' }, { mfa_token: ['a'], code: '1' }, { mfa_token: token, code: { $ne: null } }]) {
        const answer = await post('/api/auth/two-factor', bad)
        assert.equal(answer.status, 422, JSON.stringify(bad))
        assert.equal(answer.json().code, 'E_VALIDATION')
      }
    })

    it('of 20 right answers at once with one mfa_token exactly one gets a token', async () => {
      const email = 'race.api@example.test'
      const { secret } = await enrol(email)
      const token = await mfaToken(email)
      const code = nextCode(secret)
      const results = await Promise.all(Array.from({ length: 20 }, () => post('/api/auth/two-factor', { mfa_token: token, code })))
      const statuses = results.map((r) => r.status)
      assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(','))
      assert.ok(statuses.every((s) => s === 200 || s === 422 || s === 429), statuses.join(','))
    })

    it('different right recovery codes at once on one mfa_token: still one token', async () => {
      const email = 'race2.api@example.test'
      const { codes } = await enrol(email)
      const token = await mfaToken(email)
      const results = await Promise.all(codes.slice(0, 5).map((recovery_code) => post('/api/auth/two-factor', { mfa_token: token, recovery_code })))
      assert.equal(results.filter((r) => r.status === 200).length, 1, results.map((r) => r.status).join(','))
    })

    it('20 concurrent answers with recovery codes on one mfa_token use at most one code; a wrong code leaves the mfa_token usable', async () => {
      const email = 'burn.api@example.test'
      const { codes, secret } = await enrol(email)
      const id = Number((await db('users').where('email', email).first('id')).id)
      const token = await mfaToken(email)
      // A wrong answer first: the mfa_token stays for the next try.
      const wrong = await post('/api/auth/two-factor', { mfa_token: token, code: '000000' === nextCode(secret) ? '111111' : '000000' })
      assert.equal(wrong.status, 422)
      // Twenty different recovery codes (the ten, each twice) at once.
      const answers = [...codes, ...codes].map((recovery_code) => post('/api/auth/two-factor', { mfa_token: token, recovery_code }))
      const results = await Promise.all(answers)
      const statuses = results.map((r) => r.status)
      assert.ok(statuses.filter((s) => s === 200).length <= 1, statuses.join(','))
      assert.ok(statuses.every((s) => s === 200 || s === 422 || s === 429), statuses.join(','))
      for (const r of results.filter((x) => x.status === 429)) assert.equal(r.json().code, 'E_TOO_MANY_REQUESTS')
      const left = (await db('two_factor_recovery_codes').where('user_id', id)).length
      assert.ok(left >= 9, `${10 - left} recovery codes burnt by concurrent answers`)
    })

    it('5 wrong codes a minute: then 429 with Retry-After, even with a new mfa_token', async () => {
      const email = 'throttle.api@example.test'
      const { secret } = await enrol(email)
      const token = await mfaToken(email)
      for (let i = 0; i < 5; i++) assert.equal((await post('/api/auth/two-factor', { mfa_token: token, code: '000000' })).status, 422)
      const r = await post('/api/auth/two-factor', { mfa_token: token, code: nextCode(secret) })
      assert.equal(r.status, 429)
      assert.equal(r.json().code, 'E_TOO_MANY_REQUESTS')
      assert.match(r.headers.get('retry-after') ?? '', /^\d+$/)
      const fresh = await post('/api/auth/two-factor', { mfa_token: await mfaToken(email), code: nextCode(secret) })
      assert.equal(fresh.status, 429, 'the user\'s budget is not reset by a new login')
    })

    it('personal access tokens are unaffected', async () => {
      const email = 'pat.api@example.test'
      await enrol(email)
      const r = app.craft('token:create', email, '--name', 'ci')
      assert.equal(r.code, 0, r.stderr + r.stdout)
      const pat = r.stdout.trim()
      assert.equal((await bearer(pat, '/api/me')).status, 200)
      // It carries no second factor: `mfa:jwt` refuses it.
      assert.equal((await bearer(pat, '/api/secure')).status, 403)
    })
  })
}
