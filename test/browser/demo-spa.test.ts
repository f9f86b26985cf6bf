/**
 * The demo's single-page example and its home page panel in chromium, on an app built by the
 * demo's own steps (scripts/seed-steps.mjs, scripts/demo-spa.mjs) with tokens lasting 3 s.
 * - The home page's API panel offers the second step to a user with two factors (answered here
 *   with a recovery code) and stays readable in dark mode.
 * - The SPA, served from another origin (a second loopback port, allowed by CORS_ORIGINS), signs
 *   in with a TOTP code and calls /api/me; axe finds nothing serious, light or dark.
 * - Two tabs of the SPA share the login; after the token expired, "Call from every tab" makes
 *   both call at once: every call succeeds and one refresh is sent in all.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type Server as HttpServer } from 'node:http'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import * as OTPAuth from 'otpauth'
import { newApp, migrate, runNode, ROOT, type TestApp, type Server } from '../helpers/app-harness.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { appDb, decodeJwt } from '../helpers/security-kit.js'
import { browserSkipReason, launchBrowser, screenshot, seriousA11yViolations, freePort, type Browser } from '../helpers/browser.js'
// @ts-expect-error: a plain .mjs module without types
import { applyDemoPage, DEMO_API_ROUTES, setDemoTokenLifetime } from '../../scripts/seed-steps.mjs'
// @ts-expect-error: a plain .mjs module without types
import { applyDemoSpa } from '../../scripts/demo-spa.mjs'

const skip = browserSkipReason()
const EMAIL = 'hedy@example.com'
const PASSWORD = 'frequency hopping 1942'

/** The SPA's files from another origin, its meta pointing at the app. */
function serveSpa(app: TestApp, port: number, apiUrl: string): Promise<HttpServer> {
  const server = createServer((req, res) => {
    if (req.url === '/spa') {
      const html = readFileSync(join(app.dir, 'spa', 'index.html'), 'utf8').replace('<meta name="trowel-api" content="">', `<meta name="trowel-api" content="${apiUrl}">`)
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html)
    } else if (req.url === '/spa/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(readFileSync(join(app.dir, 'storage', 'spa', 'app.js')))
    } else {
      res.writeHead(404).end()
    }
  })
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)))
}

/** The `__token` field of a page fetched with the browser's cookies. */
async function csrfOf(page: Page, url: string): Promise<{ html: string; token: string }> {
  const html = await (await page.request.get(url)).text()
  const token = /name="__token" value="([^"]+)"/.exec(html)?.[1]
  assert.ok(token, `no CSRF field on ${url}`)
  return { html, token }
}

describe("the demo's single-page example in chromium", { skip }, () => {
  let app: TestApp
  let server: Server
  let spa: HttpServer
  let spaUrl: string
  let browser: Browser
  let totp: OTPAuth.TOTP

  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    assert.equal(app.craft('api:install', '--store', 'table').code, 0)
    applyApiSteps(app, { apiRoutes: DEMO_API_ROUTES })
    // 15-second tokens: short enough to wait for, long enough that a race under load ends before the new one expires.
    setDemoTokenLifetime(app.dir, 0.25)
    applyDemoPage(app.dir)
    applyDemoSpa(app.dir)
    migrate(app)
    const spaPort = await freePort()
    spaUrl = `http://127.0.0.1:${spaPort}`
    server = await app.serve({ CORS_ORIGINS: spaUrl })
    spa = await serveSpa(app, spaPort, server.url)
    browser = await launchBrowser()
  })

  after(async () => {
    await browser?.close()
    await new Promise((resolve) => (spa ? spa.close(resolve) : resolve(undefined)))
    await app?.cleanup()
  })

  test("the SPA's source type-checks as the app's own TypeScript (DOM types)", () => {
    const tsc = runNode([join(ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '--strict', '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--lib', 'ES2022,DOM', 'spa/main.ts'], { cwd: app.dir })
    assert.equal(tsc.code, 0, tsc.stdout + tsc.stderr)
  })

  test('the home panel offers the second step to a user with two factors, and reads in dark mode', async () => {
    const page = await browser.newPage('desktop')
    await page.goto(server.url + '/register')
    await page.getByLabel('Name').fill('Hedy Lamarr')
    await page.getByLabel('Email').fill(EMAIL)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByLabel('Confirm password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Register' }).click()
    await page.waitForURL('**/home')

    // Two factors on (for a verified address), through the account's forms with this browser's session.
    const db = appDb(app)
    await db('users').where('email', EMAIL).update({ email_verified_at: new Date() })
    await db.destroy()
    const confirm = await csrfOf(page, server.url + '/confirm-password')
    await page.request.post(server.url + '/confirm-password', { form: { __token: confirm.token, password: PASSWORD } })
    const enrol = await csrfOf(page, server.url + '/account/two-factor')
    const secret = /aria-label="Setup key ([A-Z2-7]+)"/.exec(enrol.html)?.[1]
    assert.ok(secret, 'no setup key on /account/two-factor')
    totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' })
    const enrolled = await page.request.post(server.url + '/account/two-factor', { form: { __token: enrol.token, code: totp.generate() }, headers: { accept: 'application/json' } })
    assert.equal(enrolled.status(), 200, await enrolled.text())
    const shown = await page.request.get(server.url + (await enrolled.json()).data.recovery_codes_url, { headers: { accept: 'application/json' } })
    const codes: string[] = (await shown.json()).data.recovery_codes
    assert.ok(codes.length > 0)

    await page.emulateMedia({ colorScheme: 'dark' })
    await page.goto(server.url + '/home')
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Get a token and call the API' }).click()
    const result = page.locator('#api-result')
    await result.filter({ hasText: 'E_MFA_REQUIRED' }).waitFor()
    await page.getByLabel('Authentication code').fill(codes[0]!)
    await page.getByRole('button', { name: 'Verify and call the API' }).click()
    await result.filter({ hasText: /GET \/api\/me → 200/ }).waitFor()
    assert.ok(await page.locator('#api-second-step').isHidden())
    // Dark mode: the panel takes the layout's dark code background, not a light one.
    const background = (await page.evaluate('getComputedStyle(document.getElementById("api-result")).backgroundColor')) as string
    const [r, g, b] = (background.match(/\d+/g) ?? []).map(Number)
    assert.ok(r! + g! + b! < 3 * 128, `the API panel is light in dark mode: ${background}`)
    assert.deepEqual(await seriousA11yViolations(page), [])
    await screenshot(page, 'demo-home-api-second-step-dark')
    await page.close()
  })

  test('the SPA on another origin signs in with a TOTP code and calls /api/me (axe, light and dark)', async () => {
    const page = await browser.newPage('desktop')
    await page.goto(spaUrl + '/spa')
    await page.getByLabel('Email').fill(EMAIL)
    await page.getByLabel('Password').fill(PASSWORD)
    assert.deepEqual(await seriousA11yViolations(page), [])
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByLabel('Authentication code').fill(totp.generate({ timestamp: Date.now() + 30_000 }))
    await page.getByRole('button', { name: 'Verify' }).click()
    await page.locator('#who').filter({ hasText: EMAIL }).waitFor()
    await page.getByRole('button', { name: 'Call GET /api/me' }).click()
    await page.locator('#output').filter({ hasText: `GET /api/me → 200 ${EMAIL}` }).waitFor()
    assert.deepEqual(await seriousA11yViolations(page), [])
    await screenshot(page, 'demo-spa-signed-in')
    await page.emulateMedia({ colorScheme: 'dark' })
    assert.deepEqual(await seriousA11yViolations(page), [])
    await screenshot(page, 'demo-spa-signed-in-dark')
    await page.emulateMedia({ colorScheme: 'light' })
    // Its origin is not the app's: the token went through CORS, and no cookie of the app was needed.
    assert.notEqual(new URL(page.url()).origin, new URL(server.url).origin)
    await page.close()
  })

  test('two tabs survive a forced refresh race: every call succeeds, one refresh in all', async () => {
    const tab1 = await browser.newPage('desktop')
    const tab2 = await browser.newPage('phone')
    let refreshes = 0
    const count = (request: { url(): string; method(): string }) => {
      if (request.method() === 'POST' && request.url().endsWith('/api/reauth')) refreshes++
    }
    tab1.on('request', count)
    tab2.on('request', count)
    await tab1.goto(spaUrl + '/spa')
    await tab2.goto(spaUrl + '/spa')
    await tab1.locator('#who').filter({ hasText: EMAIL }).waitFor()
    await tab2.locator('#who').filter({ hasText: EMAIL }).waitFor()
    const token = (await tab1.evaluate('localStorage.getItem("trowel.token")')) as string
    const wait = decodeJwt(token)[1].exp * 1000 - Date.now() + 300
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    // Only the race counts (loading the tabs may have refreshed a token that expired meanwhile).
    refreshes = 0
    await tab1.getByRole('button', { name: 'Call from every tab' }).click()
    for (const tab of [tab1, tab2]) await tab.locator('#output').filter({ hasText: '5 × GET /api/me → 5 × 200' }).waitFor()
    assert.equal(refreshes, 1, 'the tabs took turns: the second found the new token in storage')
    assert.notEqual(await tab2.evaluate('localStorage.getItem("trowel.token")'), token)
    assert.ok(await tab1.locator('#alert').isHidden())
    assert.ok(await tab2.locator('#alert').isHidden())
    await screenshot(tab2, 'demo-spa-two-tabs-phone')
    await tab1.close()
    await tab2.close()
  })
})
