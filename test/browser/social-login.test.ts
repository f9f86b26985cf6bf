/**
 * Social login in a real browser (Debian's chromium, headless): /login shows "Sign in with Acme"
 * (a real OpenID Provider in process, whose interaction logs the chosen account in at once); the
 * click goes to the provider and back, logged in on /home. Then the account's connections page.
 * Every page: axe-core finds no serious or critical violation and nothing is wider than 360 px.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { startOidcPeer, type OidcPeer } from '../helpers/oidc-peer.js'
import { browserSkipReason, launchBrowser, screenshot, seriousA11yViolations, fitsViewport, freePort, type Browser } from '../helpers/browser.js'

const skip = browserSkipReason()

describe('social login in chromium', { skip }, () => {
  let app: TestApp
  let server: Server
  let op: OidcPeer
  let browser: Browser
  let page: Page

  before(async () => {
    const port = await freePort()
    const appUrl = `http://127.0.0.1:${port}`
    op = await startOidcPeer([{ clientId: 'acme-client', clientSecret: 'acme-secret', redirectUris: [`${appUrl}/auth/acme/callback`] }])
    op.accounts.set('ada-sub', { email: 'ada@example.test', email_verified: true, name: 'Ada Lovelace' })
    op.next = 'ada-sub'
    app = await newApp({ env: { APP_URL: appUrl } })
    applyAuthSteps(app)
    app.edit('config/social.ts', (t) => t.replace('providers: {', `providers: {\n    acme: { driver: 'oidc', label: 'Acme', issuer: '${op.issuer}', clientId: 'acme-client', clientSecret: 'acme-secret' },`))
    migrate(app)
    server = await app.serve({}, ['--port', String(port)])
    browser = await launchBrowser()
    page = await browser.newPage('desktop')
  })

  after(async () => {
    await browser?.close()
    await app?.cleanup()
    await op?.close()
  })

  async function check(p: Page, name: string): Promise<void> {
    await screenshot(p, `social-login-${name}-desktop`)
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

  test('"Sign in with Acme" → the provider → back, logged in', async () => {
    await page.goto(server.url + '/login')
    await check(page, 'login')
    await page.getByRole('link', { name: 'Sign in with Acme' }).click()
    await page.waitForURL('**/home')
    assert.match(await page.content(), /Ada Lovelace/)
    await check(page, 'home')
    await page.goto(server.url + '/account/connections')
    assert.match(await page.content(), /Acme <strong>\(connected\)<\/strong>/)
    await check(page, 'connections')
    await page.goto(server.url + '/register')
    assert.equal(new URL(page.url()).pathname, '/home', 'logged in: no registration page')
  })
})
