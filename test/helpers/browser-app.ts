/**
 * The set-up the browser suites share: a new app with `craft auth` on a free port (APP_URL is
 * that address, so mailed links open in the browser), mail to the log or a real SMTP peer, then
 * chromium with one desktop page.
 */
import type { Page } from 'playwright-core'
import { newApp, migrate, type TestApp, type Server } from './app-harness.js'
import { applyAuthSteps } from './seed-steps.js'
import { startSmtpPeer, type SmtpPeer } from './smtp-peer.js'
import { freePort, launchBrowser, type Browser } from './browser.js'

export interface BrowserAppOptions {
  /** Mails go to a real SMTP peer; else to the log. */
  smtp?: boolean
  /** The host of APP_URL and of `base` (127.0.0.1 unless told: passkeys need `localhost`). */
  host?: string
  /** Any edit of the app before migrating. */
  edit?: (app: TestApp) => void
}

export interface BrowserApp {
  app: TestApp
  server: Server
  /** `http://<host>:<port>`, the app's APP_URL. */
  base: string
  smtp: SmtpPeer | undefined
  browser: Browser
  page: Page
  close(): Promise<void>
}

export async function startBrowserApp(options: BrowserAppOptions = {}): Promise<BrowserApp> {
  const smtp = options.smtp ? await startSmtpPeer() : undefined
  const port = await freePort()
  const base = `http://${options.host ?? '127.0.0.1'}:${port}`
  const mail: Record<string, string> = smtp ? { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port) } : { MAIL_DRIVER: 'log' }
  const app = await newApp({ env: { ...mail, APP_URL: base } })
  let browser: Browser | undefined
  try {
    applyAuthSteps(app)
    options.edit?.(app)
    migrate(app)
    const server = await app.serve({}, ['--port', String(port)])
    browser = await launchBrowser()
    const page = await browser.newPage('desktop')
    const opened = browser
    return {
      app,
      server,
      base,
      smtp,
      browser,
      page,
      async close() {
        await opened.close()
        await app.cleanup()
        await smtp?.close()
      },
    }
  } catch (error) {
    await browser?.close()
    await app.cleanup()
    await smtp?.close()
    throw error
  }
}
