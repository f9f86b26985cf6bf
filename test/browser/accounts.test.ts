/**
 * The account pages in a real browser (Debian's chromium, headless), in the starter-kit layout:
 * register, verify the address through the link read from a real SMTP peer, the account page,
 * the devices page with a second browser logged in (with "remember me"), "log out all other
 * devices" through the password confirmation page, the activity page, "remember me" surviving a
 * browser restart (a new browser holding only the remember cookie), and "This wasn't me": the
 * link's page and its button, then the secured page listing the remaining sign-in methods.
 * Every page: axe-core finds no serious or critical violation, nothing is wider than a 360 px
 * screen, screenshots (desktop and 360 px, SCREENSHOTS=1) under test-results/browser/; the layout's navigation
 * marks the current page; one page is also checked and screenshotted in dark mode.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'
import type { Server } from '../helpers/app-harness.js'
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.js'
import { mailText, type SmtpPeer } from '../helpers/smtp-peer.js'
import { browserSkipReason, launchBrowser, screenshot, seriousA11yViolations, fitsViewport, type Browser, registerIn } from '../helpers/browser.js'

const skip = browserSkipReason()
const NAME = 'Katherine Johnson'
const EMAIL = 'katherine@example.com'
const PASSWORD = 'orbital mechanics 1962'
const NARROW = { width: 360, height: 740 }

describe('account pages in chromium', { skip }, () => {
  let t: BrowserApp
  let server: Server
  let smtp: SmtpPeer
  let browser: Browser
  let second: Browser | undefined
  let page: Page

  before(async () => {
    t = await startBrowserApp({ smtp: true })
    ;({ server, browser, page } = t)
    smtp = t.smtp!
  })

  after(async () => {
    await second?.close()
    await t?.close()
  })

  const path = (p: Page = page) => new URL(p.url()).pathname

  /** axe, the 360 px check (in a second tab sharing the cookies) and screenshots of `url`'s page. */
  async function check(p: Page, name: string): Promise<void> {
    await screenshot(p, `accounts-${name}-desktop`)
    const violations = await seriousA11yViolations(p)
    assert.deepEqual(violations, [], `${name} (desktop): ${JSON.stringify(violations, null, 2)}`)
    const narrow = await p.context().newPage()
    try {
      await narrow.setViewportSize(NARROW)
      await narrow.goto(p.url())
      await screenshot(narrow, `accounts-${name}-360`)
      assert.ok(await fitsViewport(narrow), `${name} is wider than a 360 px screen`)
      const small = await seriousA11yViolations(narrow)
      assert.deepEqual(small, [], `${name} (360 px): ${JSON.stringify(small, null, 2)}`)
    } finally {
      await narrow.close()
    }
  }

  async function currentNavItem(p: Page, nav = 'Main'): Promise<string | null> {
    const current = p.getByRole('navigation', { name: nav }).locator('[aria-current="page"]')
    return (await current.count()) === 0 ? null : ((await current.first().textContent()) ?? '').trim()
  }

  async function logIn(p: Page, options: { remember?: boolean } = {}): Promise<void> {
    await p.goto(server.url + '/login')
    await p.getByLabel('Email').fill(EMAIL)
    await p.getByLabel('Password').fill(PASSWORD)
    if (options.remember) await p.getByLabel('Remember me').check()
    await p.getByRole('button', { name: 'Log in' }).click()
    await p.waitForURL('**/home')
  }

  test('the welcome page, in the layout, for a visitor', async () => {
    await page.goto(server.url + '/')
    await page.getByRole('heading', { name: 'Welcome to Trowel' }).waitFor()
    const nav = page.getByRole('navigation', { name: 'Main' })
    assert.equal(await nav.getByRole('link', { name: 'Log in' }).count(), 1)
    assert.equal(await nav.getByRole('link', { name: 'Register' }).count(), 1)
    assert.equal(await nav.getByRole('link', { name: 'Account' }).count(), 0)
    assert.match((await page.locator('link[rel="icon"]').getAttribute('href')) ?? '', /^data:image\/svg\+xml,/)
    await check(page, 'welcome')
  })

  test('the skip link is the first stop of the keyboard and leads to the content', async () => {
    await page.goto(server.url + '/login')
    await page.locator('body').focus()
    await page.keyboard.press('Tab')
    const focused = (await page.evaluate('document.activeElement ? document.activeElement.textContent.trim() : ""')) as string
    assert.equal(focused, 'Skip to content', 'the skip link has the focus first')
    const outline = (await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')) as string
    assert.notEqual(outline, 'none', 'a focused element is visibly outlined')
    assert.ok((await page.evaluate('document.activeElement.getBoundingClientRect().top')) as number >= 0, 'the focused skip link is on screen')
    await page.keyboard.press('Enter')
    // The fragment navigation is reported by the browser after the key press returns.
    await page.waitForURL((url) => url.hash === '#main', { timeout: 5000 }).catch(() => undefined)
    assert.equal(new URL(page.url()).hash, '#main')
    assert.equal(await currentNavItem(page), 'Log in')
  })

  test('register, then verify the address with the e-mailed link', async () => {
    await registerIn(page, server.url, { name: NAME, email: EMAIL, password: PASSWORD })
    assert.equal(await currentNavItem(page), 'Home')
    const nav = page.getByRole('navigation', { name: 'Main' })
    for (const name of ['Home', 'Account']) assert.equal(await nav.getByRole('link', { name, exact: true }).count(), 1, name)
    assert.equal(await nav.getByRole('button', { name: 'Log out' }).count(), 1)
    await check(page, 'home')

    await page.goto(server.url + '/email/verify')
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor()
    await check(page, 'verify-email')
    const mail = await smtp.waitFor((m) => m.to.includes(EMAIL) && /email\/verify\//.test(mailText(m.raw)))
    const link = /http:\/\/127\.0\.0\.1:\d+\/email\/verify\/[A-Za-z0-9_-]{43}/.exec(mailText(mail.raw))?.[0]
    assert.ok(link, mailText(mail.raw))
    // The link opens a page (scanners change nothing); its button verifies.
    await page.goto(link)
    await page.getByRole('heading', { name: 'Verify your e-mail address' }).waitFor()
    await check(page, 'email-link')
    await page.getByRole('button', { name: 'Verify my e-mail address' }).click()
    await page.waitForURL('**/home')
  })

  test('the account page, and in dark mode', async () => {
    await page.goto(server.url + '/account')
    await page.getByRole('heading', { name: 'Your account' }).waitFor()
    assert.equal(await currentNavItem(page), 'Account')
    assert.equal(await page.getByLabel('Name').inputValue(), NAME)
    await check(page, 'account')

    const background = async () => (await page.evaluate('getComputedStyle(document.body).backgroundColor')) as string
    const light = await background()
    await page.emulateMedia({ colorScheme: 'dark' })
    try {
      assert.notEqual(await background(), light, 'the dark theme has its own colours')
      await screenshot(page, 'accounts-account-dark')
      // Checked in full in light above: the dark scheme changes colours only.
      const violations = await seriousA11yViolations(page, { colours: true })
      assert.deepEqual(violations, [], `account (dark): ${JSON.stringify(violations, null, 2)}`)
    } finally {
      await page.emulateMedia({ colorScheme: 'light' })
    }
  })

  test('an error shows next to its field', async () => {
    await page.goto(server.url + '/account')
    await page.getByLabel('Current password').first().waitFor()
    const form = page.locator('form[action="/account/password"]')
    await form.getByLabel('Current password').fill('not my password at all')
    await form.getByLabel('New password', { exact: true }).fill('a perfectly good passphrase')
    await form.getByLabel('Confirm new password').fill('a perfectly good passphrase')
    await form.getByRole('button', { name: 'Change password' }).click()
    await page.waitForURL('**/account')
    const field = page.locator('form[action="/account/password"]').getByLabel('Current password')
    assert.equal(await field.getAttribute('aria-invalid'), 'true')
    const describedBy = (await field.getAttribute('aria-describedby')) ?? ''
    assert.ok(describedBy, 'the field names its error')
    assert.ok((await page.locator(`#${describedBy.split(' ').at(-1)}.field-error`).count()) === 1, 'the error is a .field-error next to it')
    await check(page, 'account-errors')
  })

  test('devices: a second browser logged in (remember me), then "log out all other devices" through the password confirmation', async () => {
    second = await launchBrowser()
    const other = await second.newPage('desktop')
    await logIn(other, { remember: true })
    assert.ok((await second.context.cookies()).some((c) => c.name === 'trowel_remember'), 'the remember cookie is set')

    await page.goto(server.url + '/account/devices')
    await page.getByRole('heading', { name: 'Devices' }).waitFor()
    assert.equal(await currentNavItem(page, 'Settings'), 'Devices')
    // A later visit: a new session, so the password typed at registration no longer counts.
    const kept = (await browser.context.cookies()).filter((c) => c.name !== 'trowel_session')
    await browser.context.clearCookies()
    await browser.context.addCookies(kept)
    await page.reload()
    assert.equal(await page.locator('ul.devices > li').count(), 2)
    await check(page, 'devices')

    await page.getByRole('button', { name: 'Log out all other devices' }).click()
    await page.waitForURL('**/confirm-password')
    await page.getByRole('heading', { name: 'Confirm your password' }).waitFor()
    await check(page, 'confirm-password')
    await page.getByLabel('Password').fill('not the password')
    await page.getByRole('button', { name: 'Confirm' }).click()
    await page.waitForURL('**/confirm-password')
    assert.equal(await page.getByLabel('Password').getAttribute('aria-invalid'), 'true')
    await check(page, 'confirm-password-error')
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Confirm' }).click()
    await page.waitForURL((url) => url.pathname === '/account/devices')
    // Back where the POST came from; with the password fresh, the button now acts.
    if ((await page.locator('ul.devices > li').count()) > 1) {
      await page.getByRole('button', { name: 'Log out all other devices' }).click()
      await page.waitForURL('**/account/devices')
    }
    assert.equal(await page.locator('ul.devices > li').count(), 1)
    await check(page, 'devices-alone')

    await other.goto(server.url + '/home')
    assert.equal(path(other), '/login', 'the other browser is logged out (its remember cookie too)')
  })

  test('remember me: a new browser holding only the remember cookie is logged in', async () => {
    await second?.close()
    second = await launchBrowser()
    const first = await second.newPage('desktop')
    await logIn(first, { remember: true })
    const remember = (await second.context.cookies()).find((c) => c.name === 'trowel_remember')
    assert.ok(remember, 'the remember cookie is set')
    await second.close()

    second = await launchBrowser()
    await second.context.addCookies([remember])
    const restarted = await second.newPage('desktop')
    await restarted.goto(server.url + '/home')
    assert.equal(path(restarted), '/home')
    await restarted.getByRole('heading', { name: `Hello, ${NAME}!` }).waitFor()
  })

  test('the activity page', async () => {
    await page.goto(server.url + '/account/activity')
    await page.getByRole('heading', { name: 'Activity' }).waitFor()
    assert.equal(await currentNavItem(page, 'Settings'), 'Activity')
    assert.ok((await page.locator('ol.activity > li').count()) >= 3)
    await check(page, 'activity')
  })

  test('"This wasn\'t me" from the new-device e-mail: the page and its button, the remaining sign-in methods, then the dead link', async () => {
    const notice = await smtp.waitFor((m) => m.to.includes(EMAIL) && /account\/secure\//.test(mailText(m.raw)))
    const link = /http:\/\/127\.0\.0\.1:\d+\/account\/secure\/[A-Za-z0-9_-]{43}/.exec(mailText(notice.raw))?.[0]
    assert.ok(link, mailText(notice.raw))
    const visitor = await browser.newPage('desktop')
    try {
      // Opening the link changes nothing: a page with a button.
      const response = await visitor.goto(link)
      assert.equal(response?.status(), 200)
      await visitor.getByRole('heading', { name: 'Someone else used your account?' }).waitFor()
      await screenshot(visitor, 'accounts-secure-desktop')
      assert.deepEqual(await seriousA11yViolations(visitor), [])
      await visitor.setViewportSize(NARROW)
      assert.ok(await fitsViewport(visitor))
      await screenshot(visitor, 'accounts-secure-360')
      await page.goto(server.url + '/home')
      assert.equal(path(), '/home', 'opening the link logged nobody out')

      // The button: the secured page, shown logged out, with the remaining sign-in methods.
      await visitor.getByRole('button', { name: 'Secure my account' }).click()
      await visitor.getByRole('heading', { name: 'Your account is secured' }).waitFor()
      assert.equal(new URL(visitor.url()).pathname, '/account/secured')
      await visitor.getByRole('heading', { name: 'Review your sign-in methods' }).waitFor()
      await visitor.getByText('(reset needed)').waitFor()
      assert.ok(!(await visitor.content()).includes(EMAIL), 'no address on the page')
      assert.deepEqual(await seriousA11yViolations(visitor), [])
      assert.ok(await fitsViewport(visitor))
      await screenshot(visitor, 'accounts-secured-360')
      await visitor.setViewportSize({ width: 1280, height: 800 })
      await screenshot(visitor, 'accounts-secured-desktop')

      const again = await visitor.goto(link)
      assert.equal(again?.status(), 404)
      await visitor.getByText('This link is invalid or has expired.').waitFor()
      assert.deepEqual(await seriousA11yViolations(visitor), [])
      await screenshot(visitor, 'accounts-secure-invalid-desktop')
    } finally {
      await visitor.close()
    }
    await page.goto(server.url + '/home')
    assert.equal(path(), '/login', 'every login ended')
  })
})
