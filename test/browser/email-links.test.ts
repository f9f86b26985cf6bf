/**
 * The mailed e-mail links' page in a real browser (Debian's chromium, headless), with the mails
 * read from a real SMTP peer: an e-mail change asked for on the account page, its link opened in
 * a browser that is logged out (the page asks to log in), the login that comes back to the link,
 * the button that applies the change, and the used link's page. Every page: axe-core finds no
 * serious or critical violation, nothing is wider than a 360 px screen, screenshots under
 * test-results/browser/ with SCREENSHOTS=1.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'
import type { Server } from '../helpers/app-harness.js'
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.js'
import { mailText, type SmtpPeer } from '../helpers/smtp-peer.js'
import { browserSkipReason, launchBrowser, screenshot, seriousA11yViolations, fitsViewport, registerIn } from '../helpers/browser.js'

const skip = browserSkipReason()
const EMAIL = 'grace@example.com'
const NEW_EMAIL = 'grace.hopper@example.com'
const PASSWORD = 'compilers since 1952'
const NARROW = { width: 360, height: 740 }
const LINK = /http:\/\/127\.0\.0\.1:\d+\/email\/verify\/[A-Za-z0-9_-]{43}/

describe('e-mail link pages in chromium', { skip }, () => {
  let t: BrowserApp
  let server: Server
  let smtp: SmtpPeer
  let page: Page

  before(async () => {
    t = await startBrowserApp({ smtp: true })
    ;({ server, page } = t)
    smtp = t.smtp!
  })

  after(() => t?.close())

  /** axe at desktop size and at 360 px (the same page resized), with screenshots. */
  async function check(p: Page, name: string): Promise<void> {
    await p.setViewportSize({ width: 1280, height: 800 })
    await screenshot(p, `email-link-${name}-desktop`)
    assert.deepEqual(await seriousA11yViolations(p), [], `${name} (desktop)`)
    await p.setViewportSize(NARROW)
    await screenshot(p, `email-link-${name}-360`)
    assert.ok(await fitsViewport(p), `${name} is wider than a 360 px screen`)
    assert.deepEqual(await seriousA11yViolations(p), [], `${name} (360 px)`)
  }

  async function linkTo(address: string): Promise<string> {
    const mail = await smtp.waitFor((m) => m.to.includes(address) && LINK.test(mailText(m.raw)))
    return LINK.exec(mailText(mail.raw))![0]
  }

  test('an e-mail change link opened logged out: log in, back to the link, the button applies it', async () => {
    await registerIn(page, server.url, { name: 'Grace Hopper', email: EMAIL, password: PASSWORD })

    // The verification link's page, then its button.
    await page.goto(await linkTo(EMAIL))
    await page.getByRole('heading', { name: 'Verify your e-mail address' }).waitFor()
    await check(page, 'verify')
    await page.getByRole('button', { name: 'Verify my e-mail address' }).click()
    await page.waitForURL('**/home')

    // Ask for the change on the account page.
    await page.goto(server.url + '/account')
    await page.locator('#new-email').fill(NEW_EMAIL)
    await page.locator('#email-password').fill(PASSWORD)
    await page.locator('form[action="/account/email"] button[type="submit"]').click()
    await page.waitForURL('**/account')
    const link = await linkTo(NEW_EMAIL)

    // Opened in a browser that is logged out (another profile): the page asks to log in.
    const other = await launchBrowser()
    try {
      const visitor = await other.newPage('desktop')
      await visitor.goto(link)
      await visitor.getByRole('heading', { name: 'Log in to confirm your new e-mail address' }).waitFor()
      await check(visitor, 'login')
      await visitor.getByRole('link', { name: 'Log in' }).last().click()
      await visitor.getByLabel('Email').fill(EMAIL)
      await visitor.getByLabel('Password').fill(PASSWORD)
      await visitor.getByRole('button', { name: 'Log in' }).click()
      await visitor.waitForURL('**/email/verify/**')
      await visitor.getByRole('heading', { name: 'Confirm your new e-mail address' }).waitFor()
      await check(visitor, 'change')
      await visitor.getByRole('button', { name: 'Change my e-mail address' }).click()
      await visitor.waitForURL('**/home')
      await visitor.getByText(`Your e-mail address is now ${NEW_EMAIL}.`).waitFor()

      // The used link: a page saying so.
      const again = await visitor.goto(link)
      assert.equal(again?.status(), 404)
      await visitor.getByRole('heading', { name: 'This link cannot be used' }).waitFor()
      await check(visitor, 'invalid')
    } finally {
      await other.close()
    }
  })
})
