/**
 * Passkeys in a real browser (Debian's chromium, headless) with a virtual authenticator (CTAP2,
 * built in, resident keys, user verification) attached through the DevTools protocol. The app is
 * served as http://localhost:<port> (a secure context whose hostname can be an RP ID; an IP
 * address cannot). A browser without WebAuthn is not offered the passkey button. Register, then add a passkey from /account/passkeys (registering counts as
 * typing the password: no confirmation), see it listed; log out and "Sign in with a passkey" lands on /home;
 * a user with TOTP on signs in with a passkey without the two-factor challenge; a password login
 * adding a passkey is sent to step up with the one it has first; after a passkey sign-in, adding
 * one goes through the password confirmation and comes back with the typed name; remove the passkey
 * (the authenticator still holds it) and the same sign-in is refused on the login page. axe-core
 * finds no serious or critical violation on /account/passkeys or /login, nothing is wider than a
 * 360 px screen, screenshots under test-results/browser/ (SCREENSHOTS=1).
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { CDPSession, Page } from 'playwright-core'
import type { Knex } from 'knex'
import type { TestApp, Server } from '../helpers/app-harness.js'
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.js'
import { appDb } from '../helpers/security-kit.js'
import { browserSkipReason, screenshot, seriousA11yViolations, fitsViewport, type Browser, registerIn } from '../helpers/browser.js'

const skip = browserSkipReason()
const NAME = 'Grace Hopper'
const EMAIL = 'grace@example.com'
const PASSWORD = 'compiler nanosecond 1952'
const NARROW = { width: 360, height: 740 }

describe('passkeys in chromium', { skip }, () => {
  let t: BrowserApp
  let app: TestApp
  let server: Server
  let browser: Browser
  let page: Page
  let cdp: CDPSession
  let authenticatorId: string
  let db: Knex
  let base: string

  before(async () => {
    // A passkey's relying-party id is a domain name (never an IP address), and localhost is a secure context.
    t = await startBrowserApp({ host: 'localhost' })
    ;({ app, server, base, browser, page } = t)
    assert.equal(server.port, Number(new URL(base).port))
    db = appDb(app)
    cdp = await page.context().newCDPSession(page)
    await cdp.send('WebAuthn.enable')
    const added = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    })
    authenticatorId = added.authenticatorId
    // A switch for the tests of the button: a browser without passkey autofill (conditional UI).
    // With it on, the virtual authenticator answers the autofill request by itself.
    await page.addInitScript(`if (localStorage.getItem('no-autofill') === '1' && window.PublicKeyCredential) {
      PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false)
    }`)
  })

  after(async () => {
    await db?.destroy()
    await t?.close()
  })

  const path = (p: Page = page) => new URL(p.url()).pathname

  /** axe, the 360 px check (in a second tab sharing the cookies) and screenshots. */
  async function check(p: Page, name: string): Promise<void> {
    await screenshot(p, `passkeys-${name}-desktop`)
    const violations = await seriousA11yViolations(p)
    assert.deepEqual(violations, [], `${name} (desktop): ${JSON.stringify(violations, null, 2)}`)
    const narrow = await p.context().newPage()
    try {
      await narrow.setViewportSize(NARROW)
      await narrow.goto(p.url())
      await screenshot(narrow, `passkeys-${name}-360`)
      assert.ok(await fitsViewport(narrow), `${name} is wider than a 360 px screen`)
      const small = await seriousA11yViolations(narrow)
      assert.deepEqual(small, [], `${name} (360 px): ${JSON.stringify(small, null, 2)}`)
    } finally {
      await narrow.close()
    }
  }

  async function credentialsHeld(): Promise<number> {
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
    return credentials.length
  }

  async function logOut(): Promise<void> {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Log out' }).click()
    await page.waitForURL('**/login')
  }

  async function signInWithPasskey(): Promise<void> {
    await page.goto(base + '/login')
    const button = page.getByRole('button', { name: 'Sign in with a passkey' })
    await button.waitFor({ state: 'visible' })
    await button.click()
  }

  test('a browser without WebAuthn is not offered the passkey sign-in', async () => {
    const other = await browser.newPage('desktop')
    try {
      await other.addInitScript('delete window.PublicKeyCredential')
      await other.goto(base + '/login')
      await other.getByRole('button', { name: 'Log in' }).waitFor()
      // The script has run (deferred) by the time the page has loaded.
      await other.waitForLoadState('load')
      assert.equal(await other.getByRole('button', { name: 'Sign in with a passkey' }).isVisible(), false)
    } finally {
      await other.close()
    }
    await page.goto(base + '/login')
    await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor({ state: 'visible' })
  })

  test('add a passkey from the account pages right after registering (no second password prompt)', async () => {
    await registerIn(page, base, { name: NAME, email: EMAIL, password: PASSWORD })
    // Adding a passkey needs a verified address (the registration mail's link).
    await db('users').where('email', EMAIL).update({ email_verified_at: new Date() })

    await page.goto(base + '/account')
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Passkeys' }).click()
    await page.waitForURL('**/account/passkeys')
    await page.getByText('No passkeys yet.').waitFor()
    await check(page, 'empty')

    await page.getByLabel('Name (optional)').fill('Work laptop')
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    // Registered a moment ago: that counts as typing the password, so it is not asked again.
    await page.getByText('Passkey added.').waitFor()
    assert.equal(path(), '/account/passkeys')
    await page.getByRole('heading', { name: 'Work laptop' }).waitFor()
    assert.equal(await credentialsHeld(), 1)
    const rows = await db('passkeys')
    assert.equal(rows.length, 1)
    assert.equal(rows[0].name, 'Work laptop')
    await check(page, 'listed')
  })

  test('autofill: on /login the browser offers the passkey, and picking it signs in', async () => {
    await logOut()
    // The virtual authenticator picks the passkey offered in the e-mail field's autofill at once.
    await page.waitForURL('**/home')
    const row = await db('passkeys').first()
    assert.ok(row.last_used_at, 'the sign-in was not recorded')
    await page.goto(base + '/account/passkeys')
    await page.getByRole('heading', { name: 'Work laptop' }).waitFor()
    assert.equal(await page.getByText('Never').count(), 0)
  })

  test('a browser without autofill: log out, then "Sign in with a passkey" lands on /home', async () => {
    await page.evaluate(`localStorage.setItem('no-autofill', '1')`)
    await logOut()
    await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor({ state: 'visible' })
    assert.equal(await page.getByLabel('Email').getAttribute('autocomplete'), 'username webauthn')
    await check(page, 'login')
    await signInWithPasskey()
    await page.waitForURL('**/home')
  })

  test('a user with TOTP on signs in with a passkey without the two-factor challenge', async () => {
    await db('users').where('email', EMAIL).update({ two_factor_confirmed_at: new Date() })
    try {
      await logOut()
      await signInWithPasskey()
      await page.waitForURL('**/home')
      assert.equal(path(), '/home')
    } finally {
      await db('users').where('email', EMAIL).update({ two_factor_confirmed_at: null })
    }
  })

  test('a password login adding a passkey is first sent to step up with the passkey it has, then back', async () => {
    // Autofill is off in this browser (above): the login page does not sign in with the passkey.
    await logOut()
    await page.getByLabel('Email').fill(EMAIL)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.waitForURL('**/home')
    await page.goto(base + '/account/passkeys')
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    await page.waitForURL('**/two-factor-challenge')
    const use = page.getByRole('button', { name: 'Use a passkey' })
    await use.waitFor({ state: 'visible' })
    await use.click()
    await page.waitForURL('**/account/passkeys')
    await page.getByRole('heading', { name: 'Work laptop' }).waitFor()
    assert.equal((await db('passkeys')).length, 1, 'nothing was added by the password alone')
    // Back to a passkey sign-in (no typed password) for the next test.
    await logOut()
    await signInWithPasskey()
    await page.waitForURL('**/home')
  })

  test('remove the passkey; the authenticator still holds it, and the sign-in is refused', async () => {
    await page.goto(base + '/account/passkeys')
    // Signed in with a passkey, which is not a typed password: adding one asks for it first, and
    // the name typed is still in the field when the confirmation brings the user back.
    await page.getByLabel('Name (optional)').fill('Phone')
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    await page.waitForURL('**/confirm-password')
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Confirm' }).click()
    await page.waitForURL('**/account/passkeys')
    assert.equal(await page.getByLabel('Name (optional)').inputValue(), 'Phone')
    await page.getByRole('button', { name: 'Remove Work laptop' }).click()
    await page.getByText('Passkey removed.').waitFor()
    await page.getByText('No passkeys yet.').waitFor()
    assert.equal((await db('passkeys')).length, 0)
    assert.equal(await credentialsHeld(), 1)

    await logOut()
    await signInWithPasskey()
    await page.getByText('The passkey sign-in failed. Please try again.').waitFor()
    assert.equal(path(), '/login')
    await page.goto(base + '/home')
    await page.waitForURL('**/login**')
  })
})
