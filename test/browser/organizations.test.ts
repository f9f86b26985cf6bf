/**
 * Organisations in a real browser (Debian's chromium, headless): an owner creates an organisation
 * and invites by e-mail; the guest, in a second browser, opens the mailed link and accepts; the
 * owner changes the guest's role, then removes them. Every page: axe-core finds no serious or
 * critical violation and nothing is wider than a 360 px screen.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { Client } from '../helpers/http-client.js'
import { appDb } from '../helpers/security-kit.js'
import { startSmtpPeer, mailText, type SmtpPeer } from '../helpers/smtp-peer.js'
import { browserSkipReason, launchBrowser, screenshot, seriousA11yViolations, fitsViewport, freePort, type Browser } from '../helpers/browser.js'

const skip = browserSkipReason()
const PASSWORD = 'compilers all the way down'
const OWNER = 'ada@example.com'
const GUEST = 'grace@example.com'

describe('organisations in chromium', { skip }, () => {
  let app: TestApp
  let server: Server
  let smtp: SmtpPeer
  let owner: Browser
  let guest: Browser

  before(async () => {
    smtp = await startSmtpPeer()
    const port = await freePort()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port), APP_URL: `http://127.0.0.1:${port}` } })
    applyAuthSteps(app)
    const r = app.craft('auth', '--organizations')
    assert.equal(r.code, 0, r.stdout + r.stderr)
    migrate(app)
    server = await app.serve({}, ['--port', String(port)])
    for (const [name, email] of [['Ada Lovelace', OWNER], ['Grace Hopper', GUEST]]) {
      const c = new Client(server.url)
      const done = await c.submit('/register', '/register', { name: name!, email: email!, password: PASSWORD, password_confirmation: PASSWORD })
      assert.equal(done.location, '/home')
    }
    const db = appDb(app)
    try {
      await db('users').update({ email_verified_at: new Date() })
    } finally {
      await db.destroy()
    }
    owner = await launchBrowser()
    guest = await launchBrowser()
  })

  after(async () => {
    await owner?.close()
    await guest?.close()
    await app?.cleanup()
    await smtp?.close()
  })

  async function check(p: Page, name: string): Promise<void> {
    await screenshot(p, `organizations-${name}-desktop`)
    const violations = await seriousA11yViolations(p)
    assert.deepEqual(violations, [], `${name}: ${JSON.stringify(violations, null, 2)}`)
    const narrow = await p.context().newPage()
    try {
      await narrow.setViewportSize({ width: 360, height: 740 })
      await narrow.goto(p.url())
      assert.ok(await fitsViewport(narrow), `${name} is wider than a 360 px screen`)
    } finally {
      await narrow.close()
    }
  }

  async function logIn(p: Page, email: string): Promise<void> {
    await p.goto(server.url + '/login')
    await p.getByLabel('Email').fill(email)
    await p.getByLabel('Password').fill(PASSWORD)
    await p.getByRole('button', { name: 'Log in' }).click()
    await p.waitForURL('**/home')
  }

  test('create, invite, accept in a second browser, change the role, remove', async () => {
    const a = await owner.newPage('desktop')
    await logIn(a, OWNER)
    await a.goto(server.url + '/organizations')
    await check(a, 'index')
    await a.getByLabel('Name').fill('Acme Labs')
    await a.getByRole('button', { name: 'Create organisation' }).click()
    await a.waitForURL('**/organizations/acme-labs')
    await a.getByRole('heading', { name: 'Acme Labs', level: 1 }).waitFor()
    await check(a, 'show')
    await a.getByLabel('Email').fill(GUEST)
    await a.getByLabel('Role', { exact: true }).selectOption('admin')
    await a.getByRole('button', { name: 'Send invitation' }).click()
    await a.getByText(`Invitation sent to ${GUEST}.`).waitFor()

    const mail = await smtp.waitFor((m) => m.to.includes(GUEST) && mailText(m.raw).includes('/invitations/'))
    const link = /http:\/\/127\.0\.0\.1:\d+\/invitations\/[A-Za-z0-9_-]{43}/.exec(mailText(mail.raw))?.[0]
    assert.ok(link, 'the mail carries the link: ' + mailText(mail.raw).slice(-1500))

    const b = await guest.newPage('desktop')
    await logIn(b, GUEST)
    await b.goto(link)
    await b.getByRole('heading', { name: 'Join Acme Labs' }).waitFor()
    await check(b, 'invitation')
    await b.getByRole('button', { name: 'Accept the invitation' }).click()
    await b.waitForURL('**/organizations/acme-labs')
    await b.getByText('You joined Acme Labs.').waitFor()

    await a.reload()
    await a.getByLabel('Role of Grace Hopper', { exact: true }).selectOption('member')
    await a.getByRole('button', { name: 'Change role of Grace Hopper' }).click()
    await a.getByText('Role changed.').waitFor()
    assert.match(await a.locator('ul.members').innerText(), /grace@example\.com · member/)
    await a.getByRole('button', { name: 'Remove Grace Hopper' }).click()
    await a.getByText('Member removed.').waitFor()
    assert.doesNotMatch(await a.locator('ul.members').innerText(), /grace@example\.com/)
    await check(a, 'after-remove')
    await b.reload()
    assert.equal(await b.getByRole('heading', { name: 'Acme Labs', level: 1 }).count(), 0, 'the removed member sees it no more')
  })
})
