/**
 * @module http/response
 * The response a handler builds: status, headers, cookies and a body. Builder methods return the
 * response itself, so `return response.json(data)` and `return response.redirect('/home')` work.
 */
import { serialize as serializeCookie, type SerializeOptions } from 'cookie'
import type { CookieJar, CookieMode } from './cookie-jar.js'

export interface CookieOptions extends SerializeOptions {
  /** How the value is protected; `false` sends it as is. Default `'signed'`. */
  protect?: CookieMode | false
}

export type UrlResolver = (name: string, params?: Record<string, unknown>) => string

export class Response {
  statusCode = 200
  body: string | Buffer | null = null
  readonly headers = new Map<string, string | string[]>()
  #cookies: Map<string, string> | undefined
  #jar: CookieJar
  #secure: boolean
  #urlFor: UrlResolver
  #referer: string | undefined

  constructor(options: { cookies: CookieJar; secure: boolean; urlFor: UrlResolver; referer?: string }) {
    this.#jar = options.cookies
    this.#secure = options.secure
    this.#urlFor = options.urlFor
    this.#referer = options.referer
  }

  /** The `Set-Cookie` values to send, by cookie name (the map is made when first asked for). */
  get cookies(): Map<string, string> {
    return (this.#cookies ??= new Map())
  }

  /** The `Set-Cookie` values to send, or undefined when none is set (asks for no map). */
  setCookieValues(): string[] | undefined {
    const cookies = this.#cookies
    return cookies !== undefined && cookies.size > 0 ? [...cookies.values()] : undefined
  }

  status(code: number): this {
    this.statusCode = code
    return this
  }

  header(name: string, value: string | number | string[]): this {
    this.headers.set(name.toLowerCase(), Array.isArray(value) ? value : String(value))
    return this
  }

  getHeader(name: string): string | string[] | undefined {
    return this.headers.get(name.toLowerCase())
  }

  /** Adds `name` to `Vary` unless it is there already (or `Vary` is `*`). */
  vary(name: string): this {
    const current = this.getHeader('vary')
    const value = Array.isArray(current) ? current.join(', ') : (current ?? '')
    const names = value.split(',').map((v) => v.trim().toLowerCase()).filter((v) => v !== '')
    if (names.includes('*') || names.includes(name.toLowerCase())) return this
    return this.header('Vary', value.trim() === '' ? name : `${value}, ${name}`)
  }

  removeHeader(name: string): this {
    this.headers.delete(name.toLowerCase())
    return this
  }

  json(data: unknown, status?: number): this {
    if (status !== undefined) this.statusCode = status
    this.header('content-type', 'application/json; charset=utf-8')
    this.body = JSON.stringify(data === undefined ? null : data)
    return this
  }

  html(markup: string, status?: number): this {
    if (status !== undefined) this.statusCode = status
    this.header('content-type', 'text/html; charset=utf-8')
    this.body = markup
    return this
  }

  text(content: string, status?: number): this {
    if (status !== undefined) this.statusCode = status
    this.header('content-type', 'text/plain; charset=utf-8')
    this.body = content
    return this
  }

  /** Redirects to a URL, or to a named route with `{ route, params }`. */
  redirect(target: string | { route: string; params?: Record<string, unknown> }, status = 302): this {
    const url = typeof target === 'string' ? target : this.#urlFor(target.route, target.params)
    this.statusCode = status
    this.header('location', headerSafeUrl(url) ?? '/')
    this.body = null
    return this
  }

  redirectToRoute(name: string, params?: Record<string, unknown>, status = 302): this {
    return this.redirect({ route: name, params }, status)
  }

  /** Redirects to the same-site Referer path, else to `fallback`. */
  back(fallback = '/'): this {
    return this.redirect(refererPath(this.#referer) ?? fallback)
  }

  /** Sets a cookie, signed with APP_KEY by default; HttpOnly, SameSite=Lax, Path=/, Secure over HTTPS. */
  cookie(name: string, value: string, options: CookieOptions = {}): this {
    const { protect = 'signed', ...rest } = options
    const packed = protect === false ? value : this.#jar.pack(name, value, protect)
    this.cookies.set(
      name,
      serializeCookie(name, packed, { httpOnly: true, sameSite: 'lax', path: '/', secure: this.#secure, ...rest }),
    )
    return this
  }

  clearCookie(name: string, options: SerializeOptions = {}): this {
    this.cookies.set(
      name,
      serializeCookie(name, '', { httpOnly: true, sameSite: 'lax', path: '/', secure: this.#secure, ...options, expires: new Date(0), maxAge: 0 }),
    )
    return this
  }

  get isRedirect(): boolean {
    return this.statusCode >= 300 && this.statusCode < 400 && this.headers.has('location')
  }
}

/**
 * `url` with every character outside printable ASCII percent-encoded as UTF-8 (a header value
 * cannot carry a character above U+00FF, and Latin-1 bytes would be misread), or null when it
 * holds one that has no UTF-8 form (a lone surrogate). Printable ASCII, `%` included, is kept.
 */
export function headerSafeUrl(url: string): string | null {
  if (!/[^\u0020-\u007e]/.test(url)) return url
  try {
    return url.replace(/[^\u0020-\u007e]+/g, (run) => encodeURI(run))
  } catch {
    return null
  }
}

/**
 * `value` as a path on this site, or null: only `/x...` paths, never `//host`, `/\\host`, a
 * scheme (`https:`, `javascript:`), control characters, or anything that decodes to one of those.
 * Characters a header cannot carry (above U+00FF, and any other non-ASCII) come back
 * percent-encoded, so the path is always a valid `Location`. Use it for redirect targets taken
 * from input (`next`).
 */
export function sameSitePath(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return null
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return null
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return null
  let decoded: string
  try {
    decoded = decodeURIComponent(value)
  } catch {
    return null
  }
  if (decoded.startsWith('//') || decoded.startsWith('/\\') || /[\u0000-\u001f\u007f]/.test(decoded)) return null
  return headerSafeUrl(value)
}

/** The path (and query) of a Referer header, as a same-site path, or null. */
export function refererPath(referer: unknown): string | null {
  if (typeof referer !== 'string') return null
  try {
    const url = new URL(referer)
    return sameSitePath(url.pathname + url.search)
  } catch {
    return sameSitePath(referer)
  }
}
