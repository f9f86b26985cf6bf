/**
 * @module client/client
 * `createClient()`: the token routes of a Trowel app's JWT API (`auth.*`) and `fetch`/`get`/
 * `post`/... that attach `Authorization: Bearer <token>`. When an answer is 401 `E_TOKEN_INVALID`
 * (an expired token) the client reauthenticates once and sends the request again, once:
 * - concurrent 401s of one client share one reauth (single flight);
 * - tabs take turns (see turns.ts) and read storage again before reauthenticating, so a tab
 *   whose neighbour just reauthenticated uses the new token instead of sending its own reauth;
 * - a refused reauth clears storage and rejects every request waiting on it.
 * No other code triggers a reauth (`E_TOKEN_MISSING`, `E_MFA_REQUIRED`... go to the caller).
 * Dependency-free and free of Node's modules: runs in browsers, React Native and Node 20+.
 */
import { errorFromAnswer, TrowelError } from './errors.js'
import { memoryStorage, tokenSlot, type TokenStorage } from './storage.js'
import { defaultTurns, type ChannelConstructor, type LockManagerLike } from './turns.js'

/** `fetch` as the client calls it (the global one by default). */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>

export interface ClientOptions {
  /** The app's origin (`https://app.example.com`), or `''` for the page's own. */
  baseUrl: string
  /** `Api.routes({ authRoute })` (default `/api/auth`). */
  authRoute?: string
  /** `Api.routes({ reauthRoute })` (default `/api/reauth`). */
  reauthRoute?: string
  /** `Api.routes({ logoutRoute })` (default `/api/logout`). */
  logoutRoute?: string
  /** `Api.routes({ revokeRoute })` (default `/api/revoke`): ends a token logout could not. */
  revokeRoute?: string
  /** Where the token lives (default: in memory, this client only). */
  storage?: TokenStorage | { get(): unknown; set(token: string): unknown; remove(): unknown }
  /** The storage key (default `trowel.token`). */
  storageKey?: string
  fetch?: FetchLike
  /** Locks for taking turns (default `navigator.locks`, else locks shared by the clients of this page or process); `null`: none. */
  locks?: LockManagerLike | null
  /** Without Web Locks: a BroadcastChannel to the other tabs (default the global one, in a browser); `null`: none. */
  broadcastChannel?: ChannelConstructor | null
  /** Called after a refused reauth cleared the token (show the login form). */
  onSignedOut?: (error: TrowelError) => void
  /** Milliseconds a reauth may take before it is given up as E_NETWORK, keeping the token (default 30 000). */
  reauthTimeout?: number
}

/** `auth.twoFactor`'s answer: a code from the authenticator app, or a recovery code. */
export type SecondFactor = string | { code: string } | { recoveryCode: string }

export interface ClientAuth {
  /** POST authRoute: stores and returns the token; a user with two factors: `TrowelError` `E_MFA_REQUIRED` with `mfaToken`. */
  login(username: string, password: string): Promise<string>
  login(credentials: { username?: string; email?: string; password: string }): Promise<string>
  /** POST `<authRoute>/two-factor` with the `mfaToken` of the first step. */
  twoFactor(mfaToken: string, answer: SecondFactor): Promise<string>
  twoFactor(step: { mfaToken: string; code?: string; recoveryCode?: string }): Promise<string>
  /** Reauthenticate now (single flight, as after a 401). */
  reauth(): Promise<string>
  /** POST logoutRoute (revokeRoute for an expired token), then forget the token, whatever the answer. */
  logout(): Promise<void>
  /** POST `<authRoute>/social/<provider>` with a native SDK's ID token. */
  social(provider: string, idToken: string, options?: { nonce?: string }): Promise<string>
  /** POST `<authRoute>/email`: mails a sign-in code (202 whether or not the address has an account). */
  emailStart(email: string): Promise<void>
  /** POST `<authRoute>/email/verify` with the mailed code. */
  emailCode(email: string, code: string): Promise<string>
  /** The stored token, if any. */
  token(): Promise<string | null>
}

export interface RequestOptions extends Omit<RequestInit, 'body' | 'method'> {
  /** Added to the path as `?key=value` (undefined values left out). */
  query?: Record<string, string | number | boolean | undefined>
}

export interface TrowelClient {
  auth: ClientAuth
  /** `fetch` with the Bearer token and the reauth-and-retry; answers as they come (no throw on 4xx). */
  fetch(path: string, init?: RequestInit): Promise<Response>
  /** JSON helpers: the parsed body (undefined for 204); a non-2xx answer throws `TrowelError`. */
  get<T = unknown>(path: string, options?: RequestOptions): Promise<T>
  post<T = unknown>(path: string, body?: unknown, options?: RequestOptions): Promise<T>
  put<T = unknown>(path: string, body?: unknown, options?: RequestOptions): Promise<T>
  patch<T = unknown>(path: string, body?: unknown, options?: RequestOptions): Promise<T>
  delete<T = unknown>(path: string, options?: RequestOptions): Promise<T>
  /** Closes the BroadcastChannel, if one was opened. */
  close(): void
}

function joinUrl(baseUrl: string, path: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) {
    // The token goes only to the app: a full URL could send it anywhere.
    throw new TypeError(`trowel/client takes paths ("/api/me"), not URLs: ${path}`)
  }
  return baseUrl.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`)
}

function withQuery(path: string, query: RequestOptions['query']): string {
  if (!query) return path
  const pairs = Object.entries(query).filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined)
  if (pairs.length === 0) return path
  const search = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&')
  return path + (path.includes('?') ? '&' : '?') + search
}

/**
 * The answer's body: parsed JSON, text when it is not JSON, undefined when empty. Tolerates
 * minimal `fetch` replacements (a test's fake with only `status` and `json()`).
 */
async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204 || response.status === 304) return undefined
  if (typeof response.text !== 'function') return typeof response.json === 'function' ? response.json().catch(() => undefined) : undefined
  const text = await response.text()
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const isOk = (response: Response): boolean => response.status >= 200 && response.status < 300
const headersOf = (response: Response): { get(name: string): string | null } => response.headers ?? { get: () => null }
const codeOf = (body: unknown): unknown => (typeof body === 'object' && body !== null ? (body as { code?: unknown }).code : undefined)

function tokenOf(body: unknown): string {
  const data = typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined
  if (typeof data !== 'string' || data === '') {
    throw new TrowelError({ status: 200, code: 'E_BAD_RESPONSE', message: 'The token route answered no token.', body })
  }
  return data
}

/** Milliseconds spent waiting for a turn that mean another tab held it. */
const HANDOFF_WAIT_MS = 5
/** How long a tab that waited looks for the neighbour's new token before reauthenticating itself. */
const HANDOFF_GRACE_MS = 250

/** A refused reauth (not a network failure, 429 or 5xx): the token can never work again. */
function isRefusal(error: unknown): boolean {
  return error instanceof TrowelError && error.status >= 400 && error.status < 500 && error.status !== 429
}

export function createClient(options: ClientOptions): TrowelClient {
  const baseUrl = options.baseUrl
  const authRoute = options.authRoute ?? '/api/auth'
  const reauthRoute = options.reauthRoute ?? '/api/reauth'
  const logoutRoute = options.logoutRoute ?? '/api/logout'
  const revokeRoute = options.revokeRoute ?? '/api/revoke'
  const slot = tokenSlot(options.storage ?? memoryStorage(), options.storageKey ?? 'trowel.token')
  const fetchImpl: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  const turns = defaultTurns(`trowel-reauth:${baseUrl}${reauthRoute}`, options.locks, options.broadcastChannel)
  let inFlight: Promise<string> | null = null

  const readToken = (): Promise<string | null> => slot.read()

  async function send(path: string, init: RequestInit, token: string | null): Promise<Response> {
    const headers = new Headers(init.headers)
    if (!headers.has('accept')) headers.set('accept', 'application/json')
    if (token !== null) headers.set('authorization', `Bearer ${token}`)
    const url = joinUrl(baseUrl, path)
    try {
      return await fetchImpl(url, { ...init, headers })
    } catch (cause) {
      throw new TrowelError({ status: 0, code: 'E_NETWORK', message: `Could not reach ${baseUrl || 'the server'}.`, cause })
    }
  }

  /** POST a JSON body without a token; the parsed answer, or the answer's TrowelError. */
  async function postJson(path: string, body: unknown, token: string | null = null, signal?: AbortSignal): Promise<unknown> {
    const response = await send(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal }, token)
    const parsed = await readBody(response)
    if (!isOk(response)) throw errorFromAnswer(response.status, headersOf(response), parsed)
    return parsed
  }

  /** A token route: the token is stored and returned. */
  async function obtain(path: string, body: unknown, signal?: AbortSignal): Promise<string> {
    const token = tokenOf(await postJson(path, body, null, signal))
    await slot.write(token)
    return token
  }

  async function reauthWith(token: string): Promise<string> {
    // Every tab waits on this one: a stalled connection must not hold them all (then: E_NETWORK).
    const abort = new AbortController()
    const timer = setTimeout(() => abort.abort(), options.reauthTimeout ?? 30_000)
    try {
      return await obtain(reauthRoute, { token }, abort.signal)
    } catch (error) {
      if (isRefusal(error)) {
        // Only the token that was refused: a login made meanwhile (another tab) stays.
        if ((await readToken()) === token) await slot.clear()
        options.onSignedOut?.(error as TrowelError)
      }
      throw error
    } finally {
      clearTimeout(timer)
    }
  }

  /** The token to use instead of `used`: one reauth per client, tabs in turn, storage read again inside the turn. */
  function refreshAfter(used: string | null): Promise<string> {
    const asked = Date.now()
    inFlight ??= turns
      .run(async () => {
        let current = await readToken()
        // A turn we had to wait for was most likely a neighbour's reauth. A browser passes one
        // tab's localStorage write to another tab asynchronously, so the lock can be ours before
        // the new token is: give it a moment to arrive rather than reauthenticating again.
        if (used !== null && current === used && Date.now() - asked >= HANDOFF_WAIT_MS) {
          const until = Date.now() + HANDOFF_GRACE_MS
          while (current === used && Date.now() < until) {
            await new Promise((resolve) => setTimeout(resolve, 10))
            current = await readToken()
          }
        }
        if (current === null) throw new TrowelError({ status: 401, code: 'E_REAUTH_FAILED', message: 'Not logged in: log in again.' })
        if (used !== null && current !== used) return current
        return reauthWith(current)
      })
      .finally(() => {
        inFlight = null
      })
    return inFlight
  }

  /** `client.fetch`: the Response as it came, so the 401 is read from a copy. */
  async function authorizedFetch(path: string, init: RequestInit = {}): Promise<Response> {
    const token = await readToken()
    const response = await send(path, init, token)
    if (token === null || response.status !== 401) return response
    const code = typeof response.clone === 'function' ? codeOf(await readBody(response.clone()).catch(() => undefined)) : undefined
    if (code !== 'E_TOKEN_INVALID') return response
    return send(path, init, await refreshAfter(token))
  }

  async function request<T>(method: string, path: string, body: unknown, requestOptions: RequestOptions = {}): Promise<T> {
    const { query, ...init } = requestOptions
    const headers = new Headers(init.headers)
    let payload: string | undefined
    if (body !== undefined) {
      headers.set('content-type', 'application/json')
      payload = JSON.stringify(body)
    }
    const target = withQuery(path, query)
    const requestInit = { ...init, method, headers, body: payload }
    const token = await readToken()
    let response = await send(target, requestInit, token)
    let parsed = await readBody(response)
    if (token !== null && response.status === 401 && codeOf(parsed) === 'E_TOKEN_INVALID') {
      response = await send(target, requestInit, await refreshAfter(token))
      parsed = await readBody(response)
    }
    if (!isOk(response)) throw errorFromAnswer(response.status, headersOf(response), parsed)
    return parsed as T
  }

  const auth: ClientAuth = {
    login(first: string | { username?: string; email?: string; password: string }, password?: string) {
      const body = typeof first === 'string' ? { username: first, password } : { username: first.username ?? first.email, password: first.password }
      return obtain(authRoute, body)
    },
    twoFactor(first: string | { mfaToken: string; code?: string; recoveryCode?: string }, answer?: SecondFactor) {
      const step = typeof first === 'string' ? { mfaToken: first, answer } : { mfaToken: first.mfaToken, answer: first.code ?? { recoveryCode: first.recoveryCode ?? '' } }
      const given = step.answer ?? ''
      const fields =
        typeof given === 'string' ? { code: given } : 'code' in given ? { code: given.code } : { recovery_code: given.recoveryCode }
      return obtain(`${authRoute}/two-factor`, { mfa_token: step.mfaToken, ...fields })
    },
    reauth: async () => refreshAfter(null),
    async logout() {
      const token = await readToken()
      if (token === null) return
      try {
        await postJson(logoutRoute, {}, token)
      } catch (error) {
        // An expired token cannot log out but could still be reauthenticated: revoke it by value.
        if (!(error instanceof TrowelError && error.status === 401)) throw error
        await postJson(revokeRoute, { token }).catch(() => undefined)
      } finally {
        if ((await readToken()) === token) await slot.clear()
      }
    },
    social: (provider, idToken, socialOptions = {}) =>
      obtain(`${authRoute}/social/${encodeURIComponent(provider)}`, { id_token: idToken, ...(socialOptions.nonce === undefined ? {} : { nonce: socialOptions.nonce }) }),
    async emailStart(email) {
      await postJson(`${authRoute}/email`, { email })
    },
    emailCode: (email, code) => obtain(`${authRoute}/email/verify`, { email, code }),
    token: readToken,
  }

  return {
    auth,
    fetch: authorizedFetch,
    get: (path, requestOptions) => request('GET', path, undefined, requestOptions),
    post: (path, body, requestOptions) => request('POST', path, body, requestOptions),
    put: (path, body, requestOptions) => request('PUT', path, body, requestOptions),
    patch: (path, body, requestOptions) => request('PATCH', path, body, requestOptions),
    delete: (path, requestOptions) => request('DELETE', path, undefined, requestOptions),
    close: () => turns.close(),
  }
}
