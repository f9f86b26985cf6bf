/**
 * The demo's single-page example (`/spa`): plain TypeScript and `trowel/client`, bundled by
 * esbuild when the demo is created and at every `npm start` (no framework, no CDN). It signs in
 * (with the second factor when the user has one), calls the API, and shares its login with the
 * site's other tabs: when the short-lived token expires, the tabs' calls cost one refresh.
 */
import { createClient, TrowelError, webStorage } from 'trowel/client'

/** The app's origin: empty when this page is served by the app itself. */
const baseUrl = document.querySelector<HTMLMetaElement>('meta[name="trowel-api"]')?.content ?? ''

const el = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T
const loginForm = el<HTMLFormElement>('login-form')
const mfaForm = el<HTMLFormElement>('mfa-form')
const apiPanel = el<HTMLElement>('api-panel')
const who = el<HTMLElement>('who')
const alertBox = el<HTMLElement>('alert')
const output = el<HTMLElement>('output')
const refreshCount = el<HTMLElement>('refresh-count')

let refreshes = 0
let pendingMfa: string | null = null

const client = createClient({
  baseUrl,
  // localStorage: shared by this site's tabs and kept across reloads, but readable by any script
  // on the page (an XSS). The default, memory, is the safer choice when one tab is enough.
  storage: webStorage(localStorage),
  fetch: (input, init) => {
    if (input.endsWith('/api/reauth')) refreshCount.textContent = String(++refreshes)
    return fetch(input, init)
  },
  onSignedOut: () => void render('Your login ended: sign in again.'),
})

function log(line: string): void {
  const time = new Date().toLocaleTimeString()
  output.textContent = `${time}  ${line}\n${output.textContent ?? ''}`.split('\n').slice(0, 30).join('\n')
}

function describe(error: unknown): string {
  if (!(error instanceof TrowelError)) return String(error)
  const fields = error.errors ? ' ' + Object.values(error.errors).flat().join(' ') : ''
  const wait = error.retryAfter !== null ? ` Try again in ${error.retryAfter} s.` : ''
  return `${error.message}${fields}${wait} (${error.code})`
}

function showAlert(message: string): void {
  alertBox.textContent = message
  alertBox.hidden = message === ''
}

async function render(message = ''): Promise<void> {
  showAlert(message)
  const token = await client.auth.token()
  loginForm.hidden = token !== null || pendingMfa !== null
  mfaForm.hidden = token !== null || pendingMfa === null
  apiPanel.hidden = token === null
  if (token === null) return
  try {
    const me = await client.get<{ data: { email: string } }>('/api/me')
    who.textContent = me.data.email
  } catch (error) {
    showAlert(describe(error))
  }
}

loginForm.addEventListener('submit', async (event) => {
  event.preventDefault()
  const data = new FormData(loginForm)
  try {
    await client.auth.login(String(data.get('email')), String(data.get('password')))
    loginForm.reset()
    log('POST /api/auth → signed in')
    await render()
  } catch (error) {
    if (error instanceof TrowelError && error.code === 'E_MFA_REQUIRED' && error.mfaToken) {
      pendingMfa = error.mfaToken
      loginForm.reset()
      log('POST /api/auth → 401 E_MFA_REQUIRED: a second factor is needed')
      await render()
      el<HTMLInputElement>('mfa-code').focus()
      return
    }
    showAlert(describe(error))
  }
})

mfaForm.addEventListener('submit', async (event) => {
  event.preventDefault()
  const value = el<HTMLInputElement>('mfa-code').value.trim()
  if (pendingMfa === null) return
  // Six digits: the authenticator app's code; anything else: a recovery code.
  const answer = /^\d{3}\s?\d{3}$/.test(value) ? value.replace(/\s/g, '') : { recoveryCode: value }
  try {
    await client.auth.twoFactor(pendingMfa, answer)
    pendingMfa = null
    mfaForm.reset()
    log('POST /api/auth/two-factor → signed in')
    await render()
  } catch (error) {
    if (error instanceof TrowelError && error.errors?.mfa_token) pendingMfa = null
    await render(describe(error))
  }
})

el<HTMLButtonElement>('mfa-cancel').addEventListener('click', () => {
  pendingMfa = null
  void render()
})

/** Five calls at once: after the token expired, they share one refresh (and so do other tabs). */
async function burst(): Promise<void> {
  const results = await Promise.allSettled(Array.from({ length: 5 }, () => client.get<{ data: { email: string } }>('/api/me')))
  const ok = results.filter((r) => r.status === 'fulfilled').length
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')
  log(`5 × GET /api/me → ${ok} × 200${failed ? `, failed: ${describe(failed.reason)}` : ''}`)
  if (failed) await render(describe(failed.reason))
}

// Tabs ask each other to call at the same moment ("Call from every tab").
const tabs = typeof BroadcastChannel === 'function' ? new BroadcastChannel('trowel-demo-spa') : null
if (tabs) tabs.onmessage = (event) => void (event.data === 'burst' && burst())

el<HTMLButtonElement>('call-api').addEventListener('click', async () => {
  try {
    const me = await client.get<{ data: { email: string } }>('/api/me')
    log(`GET /api/me → 200 ${me.data.email}`)
  } catch (error) {
    log(`GET /api/me → ${describe(error)}`)
    await render(describe(error))
  }
})

el<HTMLButtonElement>('call-every-tab').addEventListener('click', () => {
  tabs?.postMessage('burst')
  void burst()
})

el<HTMLButtonElement>('logout').addEventListener('click', async () => {
  await client.auth.logout().catch((error: unknown) => showAlert(describe(error)))
  log('POST /api/logout → signed out')
  await render()
})

// Another tab signed in or out.
window.addEventListener('storage', (event) => {
  if (event.key === 'trowel.token') void render()
})

void render()
