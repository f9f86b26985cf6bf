/**
 * Browser end-to-end helpers: Debian's chromium (/usr/bin/chromium) driven by playwright-core,
 * headless, with a fresh user-data dir per file; axe-core injected for accessibility checks;
 * screenshots under test-results/browser/ when SCREENSHOTS=1 (they are for a person to look at and
 * assert nothing, so a plain run skips the capture). When chromium is missing the tests skip with
 * the reason (CI installs it: .ci/run).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer, type AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { ROOT } from './app-harness.js'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const SCREENSHOTS = join(ROOT, 'test-results', 'browser')
/** Full-page captures are written only when asked for: `SCREENSHOTS=1 npm test -- browser`. */
export const TAKE_SCREENSHOTS = process.env.SCREENSHOTS === '1'

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const
export type ViewportName = keyof typeof VIEWPORTS

// --process-per-site: the pages of one test share a renderer process (all are 127.0.0.1), instead
// of a new one for most new tabs; chromium's CPU over the browser files, one run each: 94 s
// against 102 s.
const ARGS = ['--process-per-site', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

let warned = false
/** Why the browser tests cannot run here, or false when they can. Prints the reason once. */
export function browserSkipReason(): string | false {
  if (existsSync(CHROMIUM)) return false
  const reason = `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run the browser tests`
  if (!warned) {
    warned = true
    process.stderr.write(`browser tests skipped: ${reason}\n`)
  }
  return reason
}

export interface Browser {
  context: BrowserContext
  newPage(viewport?: ViewportName): Promise<Page>
  close(): Promise<void>
}

/** One headless chromium with a fresh profile. */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'trowel-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: VIEWPORTS.desktop,
    acceptDownloads: false,
    locale: 'en-US',
    timeout: 30_000,
  })
  // Generous: a page that never comes fails the test all the same, and on a busy machine (six test
  // files at once on 2 cores) a registration's click waited more than 10 s for its navigation.
  context.setDefaultTimeout(30_000)
  return {
    context,
    async newPage(viewport: ViewportName = 'desktop') {
      const page = await context.newPage()
      await page.setViewportSize(VIEWPORTS[viewport])
      return page
    },
    async close() {
      await context.close().catch(() => undefined)
      rmSync(profile, { recursive: true, force: true })
    },
  }
}

/**
 * With SCREENSHOTS=1, saves a full-page screenshot as test-results/browser/<name>.png and returns
 * its path; otherwise returns null without capturing. Chromium
 * now and then answers a capture with "Unable to capture screenshot" (a frame not ready yet, seen
 * right after a redirect): the capture is tried again, up to three times, after the page has
 * settled; any other error, or the third refusal, fails the test.
 */
export async function screenshot(page: Page, name: string): Promise<string | null> {
  if (!TAKE_SCREENSHOTS) return null
  mkdirSync(SCREENSHOTS, { recursive: true })
  const path = join(SCREENSHOTS, `${name}.png`)
  for (let attempt = 1; ; attempt++) {
    try {
      await page.screenshot({ path, fullPage: true })
      return path
    } catch (error) {
      if (attempt >= 3 || !/Unable to capture screenshot/.test(String((error as Error)?.message))) throw error
      await page.waitForLoadState('load').catch(() => undefined)
      await new Promise((resolve) => setTimeout(resolve, 250 * attempt))
    }
  }
}

const axeSource = createRequire(import.meta.url).resolve('axe-core/axe.min.js')

export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: string[]
}

/**
 * axe's rules that depend on colours: all a page's other colour scheme can change, since the
 * layout's dark block (templates/layouts/app.html) sets colour properties and nothing else. A
 * whole axe run costs chromium about a second of CPU on a busy machine; these rules, a quarter.
 */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block']

/**
 * Runs axe-core in the page; returns the serious and critical violations. `colours: true` runs
 * only the rules that depend on colours, for a page already checked in full in its other scheme.
 */
export async function seriousA11yViolations(page: Page, options: { colours?: boolean } = {}): Promise<AxeViolation[]> {
  // Strings, not functions: this file is type-checked without the DOM library.
  if (!(await page.evaluate('"axe" in window'))) await page.addScriptTag({ path: axeSource })
  const only = options.colours ? `, runOnly: { type: 'rule', values: ${JSON.stringify(COLOUR_RULES)} }` : ''
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations']${only} }).then((result) =>
    result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => JSON.stringify(n.target)) })))`)) as AxeViolation[]
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
}

/** True when the page needs no horizontal scrolling (nothing wider than the viewport). */
export async function fitsViewport(page: Page): Promise<boolean> {
  return (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) as boolean
}

/** A port that was free a moment ago (for an APP_URL that must match the served port). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** Fills and sends the registration form at `base`/register, then waits for `/home`. */
export async function registerIn(page: Page, base: string, user: { name: string; email: string; password: string }): Promise<void> {
  await page.goto(base + '/register')
  await page.getByLabel('Name').fill(user.name)
  await page.getByLabel('Email').fill(user.email)
  await page.getByLabel('Password', { exact: true }).fill(user.password)
  await page.getByLabel('Confirm password').fill(user.password)
  await page.getByRole('button', { name: 'Register' }).click()
  await page.waitForURL('**/home')
}
