/**
 * @module session/session-store
 * The contract every session driver implements, and the shape of what it stores. Stores only
 * keep and hand back `SessionData`; lifetimes, ids and flash ageing are the middleware's job.
 */
import type { HttpContext } from '../http/context.js'

/** What a store persists for one session id. */
export interface SessionData {
  /** Values put with `session.put()`. */
  values: Record<string, unknown>
  /** Flash values for the next request to read (`session.getFlash()`, old input, errors). */
  flash: Record<string, unknown>
  /** The CSRF token, or null until first used. */
  csrfToken: string | null
  /** When the session was first created (ms since epoch); drives the absolute lifetime. */
  createdAt: number
  /** When a request last saved the session (ms since epoch); drives the idle lifetime. */
  lastActivity: number
}

export interface SessionStore {
  /** The data stored for `id`, or null when unknown or expired. */
  read(id: string): Promise<SessionData | null>
  /** Stores `data` for `id`; the store may forget it after `ttlSeconds`. */
  write(id: string, data: SessionData, ttlSeconds: number): Promise<void>
  /** Forgets `id` (a no-op when unknown). */
  destroy(id: string): Promise<void>
}

/**
 * A store that keeps the session in the client's cookie (the `cookie` driver) rather than behind
 * an id: the middleware binds it to each request, and the bound store carries the id itself.
 */
export interface RequestBoundSessionStore extends SessionStore {
  bind(ctx: HttpContext, cookie: SessionCookieSettings): BoundSessionStore
}

export interface BoundSessionStore extends SessionStore {
  /** The session id found in the request's (verified) cookie, or null. */
  readonly incomingId: string | null
  /** `read(id)` without a promise, for a store that holds the data already (the cookie's). */
  readNow?(id: string): SessionData | null
}

/** How the session cookie is written. */
export interface SessionCookieSettings {
  name: string
  secure: boolean
  /** Seconds; the cookie's Max-Age. */
  maxAge: number
}

export function isRequestBound(store: SessionStore): store is RequestBoundSessionStore {
  return typeof (store as Partial<RequestBoundSessionStore>).bind === 'function'
}

/** Serialises data for stores that keep text. */
export function encodeSessionData(data: SessionData): string {
  return JSON.stringify(data)
}

/** Parses stored text back into `SessionData`; anything malformed reads as null (a fresh session). */
export function decodeSessionData(text: unknown): SessionData | null {
  if (typeof text !== 'string' || text.length === 0) return null
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return null
  }
  return isSessionData(parsed) ? parsed : null
}

export function isSessionData(value: unknown): value is SessionData {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  return (
    isRecord(v.values) &&
    isRecord(v.flash) &&
    (v.csrfToken === null || typeof v.csrfToken === 'string') &&
    typeof v.createdAt === 'number' &&
    typeof v.lastActivity === 'number'
  )
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A session id: 32 bytes from the CSPRNG, base64url (256 bits). */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/
