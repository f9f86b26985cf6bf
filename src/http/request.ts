/**
 * @module http/request
 * The incoming request: parsed query and body (`input()`), route parameters, headers, verified
 * cookies, client address, request id and the user a middleware put on it.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { parse as parseCookieHeader } from 'cookie'
import type { CookieJar } from './cookie-jar.js'
import { forwardedClient } from './trust-proxy.js'
import { bag } from '../support/bag.js'

export type InputBag = Record<string, unknown>

/** What an `X-Request-Id` from a trusted proxy must look like to be kept. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

export interface RequestOptions {
  /** Trusted reverse proxies in front of the app (TRUST_PROXY; 0 = none). */
  trustProxy: number
  cookies: CookieJar
}

export class Request {
  readonly raw: IncomingMessage
  readonly method: string
  /** Path without the query string, as sent (percent-encoding kept). */
  readonly path: string
  readonly url: string
  readonly query: InputBag
  #body: InputBag = bag()
  #bodyError: unknown = undefined
  params: Record<string, string> = bag<string>()
  #options: RequestOptions
  #rawCookies?: Record<string, string | undefined>
  #verifiedCookies?: Map<string, string | undefined>
  #user: unknown = null
  #id?: string

  constructor(raw: IncomingMessage, options: RequestOptions) {
    this.raw = raw
    this.method = (raw.method ?? 'GET').toUpperCase()
    this.url = raw.url ?? '/'
    const q = this.url.indexOf('?')
    this.path = q === -1 ? this.url : this.url.slice(0, q)
    this.query = q === -1 ? bag() : parseQueryString(this.url.slice(q + 1))
    this.#options = options
  }

  /**
   * The parsed body. When it could not be read (400, 413, 415) reading it throws that error, so
   * the route's middleware decides first: an API route without a token answers 401 whatever the
   * body, and a web form's CSRF check, which reads the body, answers the body's error.
   */
  get body(): InputBag {
    if (this.#bodyError !== undefined) throw this.#bodyError
    return this.#body
  }

  set body(value: InputBag) {
    this.#body = value
    this.#bodyError = undefined
  }

  /** Why the body could not be read, or undefined. */
  get bodyError(): unknown {
    return this.#bodyError
  }

  /** Records that the body could not be read: reading `body` (or `input()`) throws `error`. */
  failBody(error: unknown): void {
    this.#bodyError = error
  }

  /**
   * A field from the body only; `fallback` when absent. For credentials and secrets, which must
   * never be taken from the query string (it ends up in logs, history and Referer headers).
   */
  post<T = unknown>(name: string, fallback?: T): T {
    const body = this.body
    return (Object.hasOwn(body, name) ? body[name] : fallback) as T
  }

  /** A field from the body, then the query string; `fallback` when absent. */
  input<T = unknown>(name: string, fallback?: T): T {
    if (Object.hasOwn(this.body, name)) return this.body[name] as T
    if (Object.hasOwn(this.query, name)) return this.query[name] as T
    return fallback as T
  }

  has(name: string): boolean {
    return Object.hasOwn(this.body, name) || Object.hasOwn(this.query, name)
  }

  /** Query and body merged (body wins). */
  all(): InputBag {
    return Object.assign(bag(this.query), this.body)
  }

  only(...names: string[]): InputBag {
    const out: InputBag = bag()
    for (const n of names) if (this.has(n)) out[n] = this.input(n)
    return out
  }

  param(name: string, fallback?: string): string | undefined {
    return Object.hasOwn(this.params, name) ? this.params[name] : fallback
  }

  /** A header's value; repeated headers are joined with ", " (set-cookie aside). */
  header(name: string): string | undefined {
    const value = this.raw.headers[name.toLowerCase()]
    if (value === undefined) return undefined
    return Array.isArray(value) ? value.join(', ') : value
  }

  /** A cookie's verified value: signed or encrypted cookies that fail verification read as undefined. */
  cookie(name: string): string | undefined {
    const verified = (this.#verifiedCookies ??= new Map())
    if (verified.has(name)) return verified.get(name)
    const raw = this.rawCookie(name)
    const value = raw === undefined ? undefined : this.#options.cookies.unpack(name, raw)
    verified.set(name, value)
    return value
  }

  /** A cookie exactly as the client sent it, unverified. */
  rawCookie(name: string): string | undefined {
    if (!this.#rawCookies) {
      const header = this.raw.headers.cookie
      try {
        this.#rawCookies = header ? parseCookieHeader(header) : {}
      } catch {
        this.#rawCookies = {}
      }
    }
    return Object.hasOwn(this.#rawCookies, name) ? this.#rawCookies[name] : undefined
  }

  /**
   * The client address: the socket's, or, behind TRUST_PROXY trusted proxies, the
   * `X-Forwarded-For` entry the outermost of them appended (see http/trust-proxy).
   */
  ip(): string {
    return forwardedClient(this.header('x-forwarded-for'), this.#options.trustProxy) ?? this.raw.socket?.remoteAddress ?? 'unknown'
  }

  /**
   * The request's id, for log lines (`request_id`): behind TRUST_PROXY trusted proxies, the
   * `X-Request-Id` they sent when it is 1–128 of `A-Z a-z 0-9 . _ : -`; otherwise (no trusted
   * proxy, no header, or any other value) a random UUID. Made on first read, then the same for
   * the whole request.
   */
  get id(): string {
    if (this.#id === undefined) {
      const sent = this.#options.trustProxy > 0 ? this.raw.headers['x-request-id'] : undefined
      this.#id = typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID()
    }
    return this.#id
  }

  isSecure(): boolean {
    if ((this.raw.socket as { encrypted?: boolean } | undefined)?.encrypted) return true
    if (this.#options.trustProxy > 0) {
      return (this.header('x-forwarded-proto') ?? '').split(',')[0]!.trim().toLowerCase() === 'https'
    }
    return false
  }

  /**
   * True when the request is JSON: its `Accept` prefers JSON to HTML (see `acceptsJsonFirst`), or
   * its body is JSON (`Content-Type: application/json` or `+json`). Web forms then answer JSON
   * (`session/json-forms`), and errors are JSON bodies.
   */
  wantsJson(): boolean {
    return acceptsJsonFirst(this.header('accept')) || this.isJson()
  }

  isJson(): boolean {
    return /^application\/(?:[\w.+-]*\+)?json\b/i.test(this.header('content-type') ?? '')
  }

  /** The user a middleware (e.g. LoadUserMiddleware) set for this request, or null. */
  user<T = any>(): T | null {
    return this.#user as T | null
  }

  setUser(user: unknown): this {
    this.#user = user ?? null
    return this
  }
}

/**
 * Whether an `Accept` header prefers JSON (`application/json` or any `+json` type) to HTML: the
 * best quality given to a JSON type is above zero and above the best given to `text/html` or
 * `application/xhtml+xml` (wildcards count for neither; on a tie, HTML wins).
 * `application/json, text/plain, * /*` and `application/json, text/html;q=0.9` are JSON;
 * `text/html, application/json` is not.
 */
export function acceptsJsonFirst(accept: string | undefined): boolean {
  if (!accept || !/json/i.test(accept)) return false
  let json = 0
  let html = 0
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase())
    let q = 1
    for (const param of params) {
      const m = /^q=([0-9.]+)$/.exec(param)
      if (m) q = Math.min(1, Math.max(0, Number(m[1]) || 0))
    }
    if (/^application\/(?:[\w.+-]*\+)?json$/.test(type)) json = Math.max(json, q)
    else if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, q)
  }
  return json > 0 && json > html
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

/** Parses a query string or url-encoded body; repeated keys become arrays; prototype keys are dropped. */
export function parseQueryString(text: string): InputBag {
  const out: InputBag = bag()
  let params: URLSearchParams
  try {
    params = new URLSearchParams(text)
  } catch {
    return out
  }
  for (const [rawKey, value] of params) addField(out, rawKey, value)
  return out
}

/**
 * Adds one form field to `out` (query strings, url-encoded and multipart bodies alike): a repeated
 * key or `name[]` becomes an array; prototype keys are dropped.
 */
export function addField(out: InputBag, rawKey: string, value: string): void {
  const key = rawKey.endsWith('[]') ? rawKey.slice(0, -2) : rawKey
  if (FORBIDDEN_KEYS.has(key)) return
  const existing = out[key]
  if (existing === undefined) out[key] = rawKey.endsWith('[]') ? [value] : value
  else if (Array.isArray(existing)) existing.push(value)
  else out[key] = [existing, value]
}
