/**
 * Black-box, written as the attack: an intruder with a phished password takes a JWT from a new
 * app's API (its config/api.ts as `api:install` generates it: `expires: null`,
 * `authenticates: false`). The owner changes the password: the intruder's JWT is refused within
 * a second (`revocation: 'epoch'` is generated, with its migration). An app whose config/api.ts
 * has no `revocation` (made before) keeps the old behaviour, and then its security mails never
 * say that "This wasn't me" ends its API tokens.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff } from '../helpers/auth-config.js'
import { startSmtpPeer, mailText, type SmtpPeer, type ReceivedMail } from '../helpers/smtp-peer.js'
import { PASSWORD } from '../helpers/security-kit.js'

const NEW_PASSWORD = 'the owner took it back 42'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('API tokens of a new app are revocable', () => {
  let app: TestApp
  let server: Server
  let smtp: SmtpPeer
  let seq = 0

  before(async () => {
    smtp = await startSmtpPeer()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port) } })
    applyAuthSteps(app)
    applyApiSteps(app)
    budgetsOff(app)
    migrate(app)
    server = await app.serve()
  })
  after(async () => {
    await app?.cleanup()
    await smtp?.close()
  })

  const subjectOf = (m: ReceivedMail) => /^Subject: (.*)$/m.exec(m.raw)?.[1]?.trim() ?? ''
  async function mailTo(to: string, subject: string): Promise<string> {
    for (let i = 0; i < 200; i++) {
      const found = smtp.messages.find((m) => m.to.includes(to) && subjectOf(m) === subject)
      if (found) return mailText(found.raw)
      await sleep(50)
    }
    throw new Error(`no "${subject}" mail to ${to}`)
  }

  /** The owner registers; the intruder, with the phished password, takes a JWT. */
  async function phished(): Promise<{ email: string; owner: Client; jwt: string }> {
    const email = `owner-${++seq}@example.test`
    const owner = new Client(server.url)
    const r = await owner.submit('/register', '/register', { name: 'Owner', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home', r.text.slice(0, 500))
    const issued = await new Client(server.url).postJson('/api/auth', { username: email, password: PASSWORD })
    assert.equal(issued.status, 200, issued.text)
    const jwt = issued.json().data as string
    return { email, owner, jwt }
  }
  const me = (jwt: string) => fetch(`${server.url}/api/me`, { headers: { authorization: `Bearer ${jwt}` } })

  it("api:install generated revocation: 'epoch' beside the seed's keys, and the epoch migration", () => {
    assert.match(app.read('config/api.ts'), /model: User, expires: null, authenticates: false, version: null, revocation: 'epoch' \}/)
    assert.ok(readdirSync(join(app.dir, 'databases/migrations')).some((f) => f.endsWith('_add_token_epoch_to_users.ts')))
  })

  it("the intruder's JWT is refused within 1 s of the owner's password change; the notice says API tokens end", async () => {
    const { email, owner, jwt } = await phished()
    assert.equal((await me(jwt)).status, 200, 'the stolen JWT works before the change')
    const changed = await owner.submit('/account', '/account/password', { form: 'password', current_password: PASSWORD, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })
    assert.equal(changed.location, '/account')
    const at = Date.now()
    let refusedAfter = -1
    while (Date.now() - at < 3000) {
      if ((await me(jwt)).status === 401) {
        refusedAfter = Date.now() - at
        break
      }
      await sleep(20)
    }
    assert.ok(refusedAfter >= 0 && refusedAfter <= 1000, `the stolen JWT was refused after ${refusedAfter} ms`)
    // The owner's new tokens work.
    const fresh = await new Client(server.url).postJson('/api/auth', { username: email, password: NEW_PASSWORD })
    assert.equal(fresh.status, 200)
    assert.equal((await me(fresh.json().data as string)).status, 200)
    const notice = await mailTo(email, 'Your password was changed')
    assert.match(notice, /ends its API tokens/)
  })

  it('an app whose config/api.ts has no revocation keeps the old behaviour, and its mails do not claim API tokens end', async () => {
    await server.stop()
    app.edit('config/api.ts', (t) => t.replace(", revocation: 'epoch'", ''))
    assert.match(app.read('config/api.ts'), /version: null \},/)
    server = await app.serve()
    const { email, owner, jwt } = await phished()
    const changed = await owner.submit('/account', '/account/password', { form: 'password', current_password: PASSWORD, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })
    assert.equal(changed.location, '/account')
    await sleep(1200)
    assert.equal((await me(jwt)).status, 200, 'the old behaviour: a JWT verifies on its signature alone')
    const notice = await mailTo(email, 'Your password was changed')
    assert.doesNotMatch(notice, /ends its API tokens|API tokens (were|have been) (ended|revoked)/i)
    assert.match(notice, /not ended/)
  })
})
