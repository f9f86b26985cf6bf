/**
 * Web authentication in a real browser (Debian's chromium, headless): register, log out, a failed
 * login, log in, and a password reset through the link read from a real SMTP peer. Every page is
 * screenshotted with SCREENSHOTS=1 (test-results/browser/), checked with axe-core (no serious or critical
 * violations) and, for the forms, checked on a phone-sized viewport too (nothing wider than it).
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'
import { newApp, installAuth, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { startSmtpPeer, mailText, type SmtpPeer } from '../helpers/smtp-peer.js'
import { browserSkipReason, launchBrowser, screenshot, seriousA11yViolations, fitsViewport, freePort, type Browser, type ViewportName, registerIn } from '../helpers/browser.js'

const skip = browserSkipReason()
const NAME = 'Ada Lovelace'
const EMAIL = 'ada@example.com'
const PASSWORD = 'analytical engine 1843'
const NEW_PASSWORD = 'difference engine 1822'

describe('web authentication in chromium', { skip }, () => {
  let app: TestApp
  let server: Server
  let smtp: SmtpPeer
  let browser: Browser
  let page: Page

  before(async () => {
    smtp = await startSmtpPeer()
    const port = await freePort()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port), APP_URL: `http://127.0.0.1:${port}` } })
    installAuth(app)
    migrate(app)
    server = await app.serve({}, ['--port', String(port)])
    browser = await launchBrowser()
    page = await browser.newPage('desktop')
  })

  after(async () => {
    await browser?.close()
    await app?.cleanup()
    await smtp?.close()
  })

  /** Screenshot, axe and (on a phone) the no-horizontal-scroll check of the current page. */
  async function check(p: Page, name: string, viewport: ViewportName = 'desktop'): Promise<void> {
    await screenshot(p, `web-auth-${name}-${viewport}`)
    const violations = await seriousA11yViolations(p)
    assert.deepEqual(violations, [], `${name} (${viewport}): ${JSON.stringify(violations, null, 2)}`)
    if (viewport === 'phone') assert.ok(await fitsViewport(p), `${name} is wider than a phone screen`)
  }

  /** The same URL on a phone-sized page sharing the cookies. */
  async function onPhone(path: string, name: string): Promise<void> {
    const phone = await browser.newPage('phone')
    try {
      await phone.goto(server.url + path)
      await check(phone, name, 'phone')
    } finally {
      await phone.close()
    }
  }

  const path = () => new URL(page.url()).pathname

  test('axe runs: a page with an unlabelled field and faint text fails the check (control)', async () => {
    const control = await browser.newPage('desktop')
    await control.setContent('<!doctype html><html><head><title>x</title></head><body><main><input type="text"><p style="color:#ddd;background:#fff">faint</p></main></body></html>')
    const ids = (await seriousA11yViolations(control)).map((v) => v.id).sort()
    await control.close()
    assert.deepEqual(ids, ['color-contrast', 'html-has-lang', 'label'])
  })

  test('the welcome page and the register form', async () => {
    await page.goto(server.url + '/')
    await assert.doesNotReject(page.getByRole('heading', { name: 'Welcome to Trowel' }).waitFor())
    await check(page, 'welcome')
    await onPhone('/', 'welcome')
    await page.goto(server.url + '/register')
    await check(page, 'register')
    await onPhone('/register', 'register')
  })

  test('an invalid registration shows the field errors and keeps the name', async () => {
    await page.goto(server.url + '/register')
    await page.getByLabel('Name').fill(NAME)
    await page.getByLabel('Email').fill('not-an-address')
    await page.getByLabel('Password', { exact: true }).fill('short')
    await page.getByLabel('Confirm password').fill('short')
    await page.getByRole('button', { name: 'Register' }).click()
    await page.waitForURL('**/register')
    assert.equal(await page.getByLabel('Name').inputValue(), NAME)
    assert.equal(await page.getByLabel('Password', { exact: true }).inputValue(), '')
    assert.ok((await page.locator('.field-error').count()) >= 2)
    await check(page, 'register-errors')
  })

  test('register → /home greets the user by name', async () => {
    await registerIn(page, server.url, { name: NAME, email: EMAIL, password: PASSWORD })
    await page.getByRole('heading', { name: `Hello, ${NAME}!` }).waitFor()
    await check(page, 'home')
    await onPhone('/home', 'home')
  })

  test('log out → /login says so; /home now sends visitors to /login', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Log out' }).click()
    await page.waitForURL('**/login')
    await page.getByText('You have been logged out.').waitFor()
    await check(page, 'logged-out')
    await page.goto(server.url + '/home')
    assert.equal(path(), '/login')
  })

  test('a wrong password shows "The email or password is incorrect." and keeps the e-mail', async () => {
    await page.goto(server.url + '/login')
    await page.getByLabel('Email').fill(EMAIL)
    await page.getByLabel('Password').fill('not my password')
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.waitForURL('**/login')
    await page.getByRole('alert').filter({ hasText: 'The email or password is incorrect.' }).waitFor()
    assert.equal(await page.getByLabel('Email').inputValue(), EMAIL)
    await check(page, 'login-failed')
    await onPhone('/login', 'login')
  })

  test('the right password logs in', async () => {
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.waitForURL('**/home')
    await page.getByRole('heading', { name: `Hello, ${NAME}!` }).waitFor()
  })

  test('password reset through the e-mailed link, then log in with the new password', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Log out' }).click()
    await page.waitForURL('**/login')
    await page.getByRole('link', { name: 'Forgot your password?' }).click()
    await page.waitForURL('**/password_reset')
    await check(page, 'password-reset')
    await onPhone('/password_reset', 'password-reset')
    await page.getByLabel('Email').fill(EMAIL)
    await page.getByRole('button', { name: 'Send reset link' }).click()
    await page.getByText('If that e-mail address is registered, a password reset link is on its way.').waitFor()
    await check(page, 'password-reset-sent')

    const mail = await smtp.waitFor((m) => m.to.includes(EMAIL) && /change_password\//.test(mailText(m.raw)))
    const link = /http:\/\/127\.0\.0\.1:\d+\/change_password\/[A-Za-z0-9_-]{43}/.exec(mailText(mail.raw))?.[0]
    assert.ok(link, mailText(mail.raw))
    assert.ok(link.startsWith(server.url), `${link} points at the server (${server.url})`)
    await page.goto(link)
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor()
    await check(page, 'change-password')
    await onPhone(new URL(link).pathname, 'change-password')
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD)
    await page.getByLabel('Confirm new password').fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Change password' }).click()
    await page.waitForURL('**/login')
    await page.getByText('Your password has been changed.').waitFor()
    await check(page, 'password-changed')

    // A used link says so at once, before anyone types a new password.
    await page.goto(link)
    await page.getByText('This password reset link is invalid or has expired.').waitFor()
    assert.equal(await page.getByLabel('New password', { exact: true }).count(), 0, 'a dead link still offers the password form')

    await page.goto(server.url + '/login')
    await page.getByLabel('Email').fill(EMAIL)
    await page.getByLabel('Password').fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.waitForURL('**/home')
    await page.getByRole('heading', { name: `Hello, ${NAME}!` }).waitFor()
  })
})
