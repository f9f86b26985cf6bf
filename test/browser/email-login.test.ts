/**
 * Sign-in by e-mail in a real browser (Debian's chromium, headless): from /login, "E-mail me a
 * sign-in link", the address form, the "check your inbox" page with the code form, then the
 * link read from a real SMTP peer: its "Sign in as …?" page, the button, /home. Every page:
 * axe-core finds no serious or critical violation and nothing is wider than a 360 px screen.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'
import type { TestApp, Server } from '../helpers/app-harness.js'
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.js'
import { Client } from '../helpers/http-client.js'
import { appDb } from '../helpers/security-kit.js'
import { mailText, type SmtpPeer } from '../helpers/smtp-peer.js'
import { browserSkipReason, screenshot, seriousA11yViolations, fitsViewport } from '../helpers/browser.js'

const skip = browserSkipReason()
const EMAIL = 'grace@example.com'
const PASSWORD = 'compilers all the way down'

describe('sign-in by e-mail in chromium', { skip }, () => {
  let t: BrowserApp
  let app: TestApp
  let server: Server
  let smtp: SmtpPeer
  let page: Page

  before(async () => {
    t = await startBrowserApp({ smtp: true, edit: (a) => a.edit('config/auth.ts', (text) => text.replace("'passkeys'],", "'passkeys', 'email_login'],")) })
    ;({ app, server, page } = t)
    smtp = t.smtp!
  })

  after(() => t?.close())

  async function check(p: Page, name: string): Promise<void> {
    await screenshot(p, `email-login-${name}-desktop`)
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

  test('ask for a link, open it, confirm, land on /home', async () => {
    const client = new Client(server.url)
    const r = await client.submit('/register', '/register', { name: 'Grace Hopper', email: EMAIL, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home')
    const db = appDb(app)
    try {
      await db('users').where('email', EMAIL).update({ email_verified_at: new Date() })
    } finally {
      await db.destroy()
    }
    await page.goto(server.url + '/login')
    await page.getByRole('link', { name: 'E-mail me a sign-in link' }).click()
    await page.waitForURL('**/login/email')
    await check(page, 'ask')
    await page.getByLabel('Email').fill(EMAIL)
    await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click()
    await page.waitForURL('**/login/email/sent')
    await page.getByLabel('Code').waitFor()
    await check(page, 'sent')
    let link = ''
    for (let i = 0; i < 200 && !link; i++) {
      const mail = smtp.messages.find((m) => m.to.includes(EMAIL) && /sign-in code: \d{6}/.test(m.raw))
      link = mail ? (/http:\/\/127\.0\.0\.1:\d+\/login\/email\/[A-Za-z0-9_-]{43}/.exec(mailText(mail.raw))?.[0] ?? '') : ''
      if (!link) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.ok(link, 'the sign-in mail arrived')
    await page.goto(link)
    await page.getByRole('heading', { name: `Sign in as ${EMAIL}?` }).waitFor()
    await check(page, 'confirm')
    await page.getByRole('button', { name: `Sign in as ${EMAIL}` }).click()
    await page.waitForURL('**/home')
    assert.match(await page.content(), /Grace Hopper/)
  })
})
