/**
 * @module session/stores/cookie-session-store
 * The `cookie` driver (the default): the whole session, id included, travels in one cookie
 * encrypted and authenticated with AES-256-GCM (CookieJar `protect: 'encrypted'`, key from
 * APP_KEY), so no server storage is needed. Browsers drop cookies over 4 KB, so a session that
 * would not fit first loses its flashed old input, then is refused with `E_SESSION_TOO_LARGE`
 * (switch to `SESSION_DRIVER=database` or `redis`). A cookie session cannot be revoked
 * server-side: an old copy stays readable until it expires, which is why logins themselves are
 * revoked by the auth guard's server-side token, not by the session.
 */
import { FrameworkError } from '../../foundation/framework-error.js'
import type { HttpContext } from '../../http/context.js'
import {
  isSessionData,
  type BoundSessionStore,
  type RequestBoundSessionStore,
  type SessionCookieSettings,
  type SessionData,
} from '../session-store.js'

/** Browsers keep cookies up to 4096 bytes (name, value and attributes). */
export const MAX_COOKIE_BYTES = 4096

export class SessionTooLargeError extends FrameworkError {
  constructor(bytes: number) {
    super(
      'E_SESSION_TOO_LARGE',
      `The session is ${bytes} bytes, more than the ${MAX_COOKIE_BYTES} bytes a cookie can hold. ` +
        'Store less in it, or set SESSION_DRIVER=database or SESSION_DRIVER=redis (config/session.ts, key "driver").',
    )
  }
}

export class CookieSessionStore implements RequestBoundSessionStore {
  bind(ctx: HttpContext, cookie: SessionCookieSettings): BoundSessionStore {
    return new BoundCookieSessionStore(ctx, cookie)
  }

  async read(): Promise<SessionData | null> {
    throw unbound()
  }

  async write(): Promise<void> {
    throw unbound()
  }

  async destroy(): Promise<void> {
    // Nothing is kept server-side.
  }
}

/** The cookie store bound to one request: reads the request's cookie, writes the response's. */
class BoundCookieSessionStore implements BoundSessionStore {
  readonly incomingId: string | null
  readonly #ctx: HttpContext
  readonly #cookie: SessionCookieSettings
  readonly #incomingData: SessionData | null
  #written = false

  constructor(ctx: HttpContext, cookie: SessionCookieSettings) {
    this.#ctx = ctx
    this.#cookie = cookie
    const parsed = parsePayload(ctx.request.cookie(cookie.name))
    this.incomingId = parsed?.id ?? null
    this.#incomingData = parsed?.data ?? null
  }

  async read(id: string): Promise<SessionData | null> {
    return this.readNow(id)
  }

  readNow(id: string): SessionData | null {
    return id === this.incomingId ? this.#incomingData : null
  }

  async write(id: string, data: SessionData, ttlSeconds: number): Promise<void> {
    const value = JSON.stringify({ id, data })
    const response = this.#ctx.response
    response.cookie(this.#cookie.name, value, {
      protect: 'encrypted',
      secure: this.#cookie.secure,
      maxAge: Math.min(this.#cookie.maxAge, ttlSeconds),
    })
    const bytes = Buffer.byteLength(response.cookies.get(this.#cookie.name) ?? '', 'utf8')
    if (bytes > MAX_COOKIE_BYTES) {
      response.cookies.delete(this.#cookie.name)
      throw new SessionTooLargeError(bytes)
    }
    this.#written = true
  }

  async destroy(id: string): Promise<void> {
    if (id === this.incomingId && !this.#written) {
      this.#ctx.response.clearCookie(this.#cookie.name, { secure: this.#cookie.secure })
    }
  }
}

function parsePayload(value: string | undefined): { id: string; data: SessionData } | null {
  if (value === undefined) return null
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch {
    return null
  }
  if (typeof parsed !== 'object' || parsed === null) return null
  const { id, data } = parsed as { id?: unknown; data?: unknown }
  if (typeof id !== 'string' || !isSessionData(data)) return null
  return { id, data }
}

function unbound(): FrameworkError {
  return new FrameworkError('E_SESSION_STORE_UNBOUND', 'The cookie session store works per request: call bind(ctx, cookie) first.')
}
