/**
 * The demo app (`npm start`) in a real browser: built in a temp folder by the same steps
 * (scripts/seed-steps.mjs: web auth, the JWT API, the demo's home page), never in the repo's demo/.
 * A user registers, and the button on /home fetches a token from POST /api/auth and calls
 * GET /api/me with it. Screenshots on a desktop and a phone; axe-core on both.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { browserSkipReason, launchBrowser, screenshot, seriousA11yViolations, fitsViewport, type Browser, registerIn } from '../helpers/browser.js'
// @ts-expect-error: a plain .mjs module without types
import { applyDemoPage, DEMO_API_ROUTES } from '../../scripts/seed-steps.mjs'

const skip = browserSkipReason()
const EMAIL = 'grace@example.com'
const PASSWORD = 'cobol compiler 1959'

describe("the demo's token button in chromium", { skip }, () => {
  let app: TestApp
  let server: Server
  let browser: Browser

  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    applyApiSteps(app, { apiRoutes: DEMO_API_ROUTES })
    applyDemoPage(app.dir)
    migrate(app)
    server = await app.serve()
    browser = await launchBrowser()
  })

  after(async () => {
    await browser?.close()
    await app?.cleanup()
  })

  async function clickTokenButton(page: Page, password: string): Promise<string> {
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Get a token and call the API' }).click()
    const result = page.locator('#api-result')
    await result.filter({ hasText: /→ \d{3}/ }).waitFor()
    return (await result.textContent()) ?? ''
  }

  test('register, then the button gets a token and calls /api/me (desktop)', async () => {
    const page = await browser.newPage('desktop')
    await registerIn(page, server.url, { name: 'Grace Hopper', email: EMAIL, password: PASSWORD })
    await page.getByRole('heading', { name: 'Try the JWT API' }).waitFor()
    assert.deepEqual(await seriousA11yViolations(page), [])
    await screenshot(page, 'demo-home-desktop')

    const text = await clickTokenButton(page, PASSWORD)
    assert.match(text, /^token: eyJ/)
    assert.match(text, /GET \/api\/me → 200/)
    const json = JSON.parse(text.slice(text.indexOf('{')))
    assert.equal(json.data.email, EMAIL)
    assert.equal(json.data.password, undefined)
    assert.equal(json.data.api_token, undefined)
    assert.deepEqual(await seriousA11yViolations(page), [])
    await screenshot(page, 'demo-token-desktop')
    await page.close()
  })

  test('a wrong password shows the 401 from /api/auth; the phone layout fits', async () => {
    const page = await browser.newPage('phone')
    await page.goto(server.url + '/home')
    await page.getByRole('heading', { name: 'Try the JWT API' }).waitFor()
    const text = await clickTokenButton(page, 'not the password')
    assert.match(text, /POST \/api\/auth → 401/)
    assert.match(text, /E_INVALID_CREDENTIALS/)
    const ok = await clickTokenButton(page, PASSWORD)
    assert.match(ok, /GET \/api\/me → 200/)
    assert.deepEqual(await seriousA11yViolations(page), [])
    assert.ok(await fitsViewport(page), 'the demo page is wider than a phone screen')
    await screenshot(page, 'demo-token-phone')
    await page.close()
  })
})
