/**
 * The polished pages in chromium (headless): the password-strength hint on register, `/home` with
 * its next steps, `/account` in sections, the settings navigation shared by the account pages,
 * long addresses wrapping, the phone navigation keeping "Log out" beside the other links, the
 * recovery codes with download, copy and print, the challenge page switching between the
 * authenticator code and a recovery code, and the 404/403/419/429/500 pages in the app's layout.
 * Every page: axe finds no serious or critical violation at 1280 px and 360 px, light and dark;
 * nothing is wider than a 360 px screen; screenshots (SCREENSHOTS=1) under test-results/browser/pages-*.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'
import { Secret, TOTP } from 'otpauth'
import { newApp, migrate, type TestApp } from '../helpers/app-harness.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff } from '../helpers/auth-config.js'
import { appDb } from '../helpers/security-kit.js'
import { browserSkipReason, launchBrowser, screenshot, seriousA11yViolations, fitsViewport, freePort, type Browser } from '../helpers/browser.js'

const skip = browserSkipReason()
const NAME = 'Dorothy Vaughan'
/** A long address: it must wrap, not widen the page. */
const EMAIL = 'dorothy.vaughan.fortran.and.the.west.computing.unit@langley-research-center.example.com'
const PASSWORD = 'slide rule punch card 1943'
const NARROW = { width: 360, height: 740 }

const ERROR_ROUTES = `
  Route.get('/pages-test/forbidden', () => 'never').middleware(['can:nobody:may']),
  Route.get('/pages-test/throttled', () => { throw new errors.TooManyRequestsError(30) }),
  Route.get('/pages-test/broken', () => { throw new Error('deliberately broken') }),
  Route.post('/pages-test/form', () => 'posted'),
`

describe('polished pages in chromium', { skip }, () => {
  let app: TestApp
  let browser: Browser
  let page: Page
  let base: string
  let codes: string[] = []
  let secret = ''

  before(async () => {
    const port = await freePort()
    base = `http://localhost:${port}`
    app = await newApp({ env: { MAIL_DRIVER: 'log', APP_URL: base, APP_DEBUG: 'false' } })
    applyAuthSteps(app)
    // Logins of one address from 127.0.0.1 all through the file: no budget nor the 2 s hashing wait on a busy machine.
    budgetsOff(app)
    app.edit('routes/web.ts', (t) => `import { errors } from 'trowel'\n` + t.replace('export const ROUTES = [', `export const ROUTES = [${ERROR_ROUTES}`))
    migrate(app)
    await app.serve({}, ['--port', String(port)])
    browser = await launchBrowser()
    page = await browser.newPage('desktop')
    // A login hashes a password: give navigations more than the 10 s default on a loaded machine.
    page.setDefaultNavigationTimeout(30_000)
  })

  after(async () => {
    await browser?.close()
    await app?.cleanup()
  })

  /**
   * axe at 1280 px and 360 px, light and dark (in dark, the rules that depend on colours: the rest
   * see the same page); the 360 px width check; screenshots of each. The 360 px view is a second
   * tab loading the same URL, or (`inPlace`, for a page shown only once, like the recovery codes)
   * this tab narrowed.
   */
  async function check(p: Page, name: string, options: { inPlace?: boolean } = {}): Promise<void> {
    for (const scheme of ['light', 'dark'] as const) {
      await p.emulateMedia({ colorScheme: scheme })
      await screenshot(p, `pages-${name}-1280-${scheme}`)
      const wide = await seriousA11yViolations(p, { colours: scheme === 'dark' })
      assert.deepEqual(wide, [], `${name} (1280 px, ${scheme}): ${JSON.stringify(wide, null, 2)}`)
    }
    await p.emulateMedia({ colorScheme: 'light' })
    if (options.inPlace) {
      const size = p.viewportSize()
      await p.setViewportSize(NARROW)
      try {
        assert.ok(await fitsViewport(p), `${name} is wider than a 360 px screen`)
        for (const scheme of ['light', 'dark'] as const) {
          await p.emulateMedia({ colorScheme: scheme })
          await screenshot(p, `pages-${name}-360-${scheme}`)
          const small = await seriousA11yViolations(p, { colours: scheme === 'dark' })
          assert.deepEqual(small, [], `${name} (360 px, ${scheme}): ${JSON.stringify(small, null, 2)}`)
        }
      } finally {
        await p.emulateMedia({ colorScheme: 'light' })
        if (size) await p.setViewportSize(size)
      }
      return
    }
    const narrow = await p.context().newPage()
    try {
      await narrow.setViewportSize(NARROW)
      await narrow.goto(p.url())
      assert.ok(await fitsViewport(narrow), `${name} is wider than a 360 px screen`)
      for (const scheme of ['light', 'dark'] as const) {
        await narrow.emulateMedia({ colorScheme: scheme })
        await screenshot(narrow, `pages-${name}-360-${scheme}`)
        const small = await seriousA11yViolations(narrow, { colours: scheme === 'dark' })
        assert.deepEqual(small, [], `${name} (360 px, ${scheme}): ${JSON.stringify(small, null, 2)}`)
      }
    } finally {
      await narrow.close()
    }
  }

  test('register shows a password-strength hint as the password is typed', async () => {
    await page.goto(base + '/register')
    const hint = page.locator('#password-strength')
    assert.equal(await hint.isVisible(), false, 'no hint before typing')
    await page.getByLabel('Password', { exact: true }).fill('password1')
    await hint.getByText(/Strength: Very weak/).waitFor()
    await page.getByLabel('Password', { exact: true }).fill('qwertyuiop')
    await hint.getByText(/Strength: Very weak/).waitFor()
    const weak = await hint.textContent()
    const weakMeter = await hint.locator('meter').evaluate((m) => (m as unknown as { value: number }).value)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await hint.getByText(/Strength: (Strong|Very strong)/).waitFor()
    assert.notEqual(await hint.textContent(), weak, 'the hint changes from a weak to a strong password')
    const strongMeter = await hint.locator('meter').evaluate((m) => (m as unknown as { value: number }).value)
    assert.ok(weakMeter === 0 && strongMeter >= 3, `meter ${weakMeter} -> ${strongMeter}`)
    await check(page, 'register')
  })

  test('/home: a welcome with the next steps, no Log out button in the page', async () => {
    await page.getByLabel('Name').fill(NAME)
    await page.getByLabel('Email').fill(EMAIL)
    await page.getByLabel('Confirm password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Register' }).click()
    await page.waitForURL('**/home')
    await page.getByRole('heading', { name: `Hello, ${NAME}!` }).waitFor()
    await page.getByRole('heading', { name: 'Verify your e-mail address' }).waitFor()
    await page.getByRole('heading', { name: 'Turn on two-factor authentication' }).waitFor()
    assert.equal(await page.locator('main').getByRole('button', { name: 'Log out' }).count(), 0, 'log out lives in the navigation')
    await check(page, 'home')
  })

  test('on a phone, the navigation keeps "Log out" on the line of the other links', async () => {
    const phone = await page.context().newPage()
    try {
      await phone.setViewportSize(NARROW)
      await phone.goto(base + '/home')
      const nav = phone.getByRole('navigation', { name: 'Main' })
      const home = await nav.getByRole('link', { name: 'Home' }).boundingBox()
      const logout = await nav.getByRole('button', { name: 'Log out' }).boundingBox()
      assert.ok(home && logout)
      assert.ok(Math.abs(home.y - logout.y) < 8, `Log out sits on its own line (${home.y} vs ${logout.y})`)
    } finally {
      await phone.close()
    }
  })

  test('/account: sections with a heading and a sentence each, the danger zone last, the settings navigation', async () => {
    const db = appDb(app)
    await db('users').where('email', EMAIL).update({ email_verified_at: new Date() })
    await db.destroy()
    await page.goto(base + '/account')
    const headings = await page.locator('main section.panel > h2').allTextContents()
    assert.deepEqual(headings, ['Profile', 'Change e-mail', 'Change password', 'Two factors and passkeys', 'Danger zone'])
    assert.equal(await page.locator('main section.panel > p.lead').count(), headings.length, 'one sentence per section')
    assert.equal(await page.getByRole('heading', { name: 'Connected accounts' }).count(), 0, 'no social feature: no connected accounts')
    const settings = page.getByRole('navigation', { name: 'Settings' })
    assert.equal(((await settings.locator('[aria-current="page"]').textContent()) ?? '').trim(), 'Profile')
    for (const name of ['Two-factor', 'Passkeys', 'Devices', 'Activity']) assert.equal(await settings.getByRole('link', { name, exact: true }).count(), 1, name)
    await page.locator('#password').fill('abc')
    await page.locator('#password-strength').getByText(/Strength/).waitFor()
    await check(page, 'account')
    for (const [link, at, shot] of [['Devices', '/account/devices', 'devices'], ['Activity', '/account/activity', 'activity'], ['Passkeys', '/account/passkeys', 'passkeys']] as const) {
      await settings.getByRole('link', { name: link, exact: true }).click()
      await page.waitForURL(`**${at}`)
      assert.equal(((await page.getByRole('navigation', { name: 'Settings' }).locator('[aria-current="page"]').textContent()) ?? '').trim(), link)
      await check(page, shot)
      await page.goto(base + '/account')
    }
  })

  test('recovery codes: download (.txt), copy and print', async () => {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Two-factor', exact: true }).click()
    await page.waitForURL('**/account/two-factor')
    secret = ((await page.locator('code.secret').textContent()) ?? '').replaceAll(' ', '')
    await page.getByLabel('Enter the 6-digit code the app shows').fill(new TOTP({ secret: Secret.fromBase32(secret) }).generate())
    await page.getByRole('button', { name: 'Turn on' }).click()
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor()
    codes = (await page.locator('ol.codes code').allTextContents()).map((c) => c.trim())
    assert.equal(codes.length, 10)
    const download = page.getByRole('link', { name: 'Download (.txt)' })
    assert.equal(await download.getAttribute('download'), 'recovery-codes.txt')
    const href = (await download.getAttribute('href')) ?? ''
    assert.match(href, /^data:text\/plain;charset=utf-8,/)
    assert.equal(decodeURIComponent(href.slice(href.indexOf(',') + 1)), codes.join('\n') + '\n')
    await page.getByRole('button', { name: 'Print' }).waitFor({ state: 'visible' })
    await page.getByRole('button', { name: 'Copy' }).click()
    await page.locator('[data-copy-status]').getByText(/Copied|copy them yourself/).waitFor()
    await check(page, 'recovery-codes', { inPlace: true })
  })

  test('the challenge page asks for the authenticator code, and switches to a recovery code', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Log out' }).click()
    await page.waitForURL('**/login')
    await page.getByLabel('Email').fill(EMAIL)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.waitForURL('**/two-factor-challenge')
    assert.equal(await page.getByLabel('Authentication code').isVisible(), true)
    assert.equal(await page.getByLabel('Recovery code').isVisible(), false)
    await check(page, 'challenge-code')
    await page.getByRole('link', { name: 'Lost your phone? Use a recovery code' }).click()
    await page.waitForURL('**/two-factor-challenge?use=recovery')
    assert.equal(await page.getByLabel('Recovery code').isVisible(), true)
    assert.equal(await page.getByLabel('Authentication code').isVisible(), false)
    await check(page, 'challenge-recovery')
    await page.getByLabel('Recovery code').fill('not-a-code')
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.locator('#recovery-code-error').waitFor()
    assert.equal(await page.getByLabel('Recovery code').isVisible(), true, 'a wrong recovery code keeps the recovery field')
    await page.getByLabel('Recovery code').fill(codes[0]!)
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.waitForURL('**/home')
  })

  test('error pages in the layout, each saying what happened once', async () => {
    const pages: [string, number, string, string][] = [
      ['/no-such-page', 404, 'Not Found', 'There is no page at this address'],
      ['/pages-test/forbidden', 403, 'Forbidden', 'You are not allowed to do this'],
      ['/pages-test/throttled', 429, 'Too Many Requests', 'Too many attempts'],
      ['/pages-test/broken', 500, 'Internal Server Error', 'Something went wrong on our side'],
    ]
    for (const [at, status, title, sentence] of pages) {
      const response = await page.goto(base + at)
      assert.equal(response?.status(), status, at)
      await page.getByRole('heading', { level: 1, name: title }).waitFor()
      const text = (await page.locator('main').textContent()) ?? ''
      assert.ok(text.includes(sentence), `${status}: ${text}`)
      assert.doesNotMatch(text, /Not found\.|Forbidden\.|deliberately broken/, `${status} repeats the reason or leaks the error`)
      assert.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 1, 'in the layout')
      await check(page, `error-${status}`)
    }
    // 419: a form posted without its CSRF token.
    await page.goto(base + '/login')
    const expired = await page.evaluate(async () => {
      const r = await fetch('/pages-test/form', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' }, body: 'x=1' })
      return { status: r.status, html: await r.text() }
    })
    assert.equal(expired.status, 419)
    await page.setContent(expired.html)
    await page.getByRole('heading', { level: 1, name: 'Page Expired' }).waitFor()
    assert.match((await page.locator('main').textContent()) ?? '', /Your session expired/)
  })
})
