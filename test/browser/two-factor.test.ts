/**
 * The two-factor page in a real browser (chromium, headless): register (which counts as typing
 * the password: no confirmation is asked), set
 * TOTP up with a code computed from the secret shown on the page, read the recovery codes, then
 * the "on" page. Every view: axe finds no serious or critical violation, nothing is wider than a
 * 360 px screen.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'
import { Secret, TOTP } from 'otpauth'
import type { TestApp, Server } from '../helpers/app-harness.js'
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.js'
import { appDb } from '../helpers/security-kit.js'
import { browserSkipReason, screenshot, seriousA11yViolations, fitsViewport, registerIn } from '../helpers/browser.js'

const skip = browserSkipReason()
const EMAIL = 'mary@example.com'
const PASSWORD = 'hidden figures 1961'
const NARROW = { width: 360, height: 740 }

describe('two-factor page in chromium', { skip }, () => {
  let t: BrowserApp
  let app: TestApp
  let server: Server
  let page: Page
  /** The TOTP key set up by the first test. */
  let secret = ''

  before(async () => {
    t = await startBrowserApp()
    ;({ app, server, page } = t)
  })
  after(() => t?.close())

  async function check(p: Page, name: string): Promise<void> {
    await screenshot(p, `two-factor-${name}-desktop`)
    const violations = await seriousA11yViolations(p)
    assert.deepEqual(violations, [], `${name} (desktop): ${JSON.stringify(violations, null, 2)}`)
    const narrow = await p.context().newPage()
    try {
      await narrow.setViewportSize(NARROW)
      await narrow.goto(p.url())
      await screenshot(narrow, `two-factor-${name}-360`)
      assert.ok(await fitsViewport(narrow), `${name} is wider than a 360 px screen`)
      const small = await seriousA11yViolations(narrow)
      assert.deepEqual(small, [], `${name} (360 px): ${JSON.stringify(small, null, 2)}`)
    } finally {
      await narrow.close()
    }
  }

  test('set up, recovery codes, and the page when on', async () => {
    await registerIn(page, server.url, { name: 'Mary Jackson', email: EMAIL, password: PASSWORD })
    // Setting up a second factor needs a verified address (the registration mail's link).
    const db = appDb(app)
    await db('users').where('email', EMAIL).update({ email_verified_at: new Date() })
    await db.destroy()
    await page.goto(server.url + '/account')
    await page.getByRole('link', { name: 'Two-factor authentication' }).click()
    // Registered a moment ago: that counts as typing the password, so it is not asked again.
    await page.waitForURL('**/account/two-factor')
    await page.getByRole('img', { name: /QR code/ }).waitFor()
    await check(page, 'setup')
    // A wrong code: the error next to the field.
    await page.getByLabel('Enter the 6-digit code the app shows').fill('000000')
    await page.getByRole('button', { name: 'Turn on' }).click()
    await page.waitForURL('**/account/two-factor')
    secret = ((await page.locator('code.secret').textContent()) ?? '').replaceAll(' ', '')
    const right = new TOTP({ secret: Secret.fromBase32(secret) }).generate()
    if (right !== '000000') {
      await page.locator('#code-error').waitFor()
      await check(page, 'wrong-code')
    }
    await page.getByLabel('Enter the 6-digit code the app shows').fill(right)
    await page.getByRole('button', { name: 'Turn on' }).click()
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor()
    assert.equal(await page.locator('ol.codes li').count(), 10)
    await screenshot(page, 'two-factor-codes-desktop')
    assert.deepEqual(await seriousA11yViolations(page), [])
    await page.goto(server.url + '/account/two-factor')
    await page.getByRole('button', { name: 'Regenerate recovery codes' }).waitFor()
    assert.equal(await page.locator('ol.codes li').count(), 0)
    await check(page, 'on')
  })

  test('the second step of the login: the challenge page, then home', async () => {
    assert.ok(secret, 'set up by the previous test')
    await page.context().clearCookies()
    await page.goto(server.url + '/login')
    await page.getByLabel('Email').fill(EMAIL)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: /log in/i }).click()
    await page.waitForURL('**/two-factor-challenge')
    await check(page, 'challenge')
    // The next time step's code: the one that turned the feature on may be this step's, used once already.
    const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + 30_000 })
    await page.getByLabel('Authentication code').fill(code)
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.waitForURL('**/home')
  })
})
