/**
 * @module session/session-middleware
 * `SessionMiddleware` (the `web` stack's first member): loads the visitor's session before the
 * handler and saves it after.
 *
 * - The cookie (`trowel_session` unless `config/session.ts` says otherwise) carries the store id
 *   signed with APP_KEY (the `cookie` driver: the whole session, encrypted). An unknown,
 *   expired, tampered or malformed id gives a fresh session with a NEW random id: a client never
 *   chooses its id (session fixation).
 * - Sessions expire after `lifetime` idle minutes (default 120) and `absolute_lifetime` minutes
 *   after creation (default 7 days) however active they are.
 * - After the handler the session is written when it changed, when flash data must age, or to
 *   keep an active session alive; the cookie is HttpOnly, SameSite=Lax, and Secure over HTTPS.
 *   Ids left behind by `regenerate()`/`invalidate()` are destroyed in the store.
 * - An answer whose request changed the CSRF token (a login or a registration regenerates it, a
 *   logout invalidates the session: a fresh token is made for the next form) carries the new
 *   token in `X-CSRF-TOKEN`, so a script that posts with that header keeps working without
 *   reading a page. The header is sent as well when this request made the session's first token.
 *
 * The request handler runs `after` even when an error was rendered, so flashed errors and old
 * input reach the next request; code that answers outside that path calls `saveSession(ctx)`.
 * Before saving, a JSON request's page or form answer becomes JSON (`session/json-forms`).
 */
import { Middleware } from '../http/middleware.js'
import type { HttpContext } from '../http/context.js'
import './context-session.js'
import type { Application } from '../foundation/application.js'
import { Session } from './session.js'
import { resolveSessionConfig, type SessionConfig } from './session-config.js'
import { createSessionStore } from './create-session-store.js'
import { SessionTooLargeError } from './stores/cookie-session-store.js'
import { answerJsonForm } from './json-forms.js'
import {
  isRequestBound,
  SESSION_ID_PATTERN,
  type BoundSessionStore,
  type SessionCookieSettings,
  type SessionData,
  type SessionStore,
} from './session-store.js'

interface RequestSessionState {
  session: Session
  store: SessionStore | BoundSessionStore
  bound: boolean
  cookie: SessionCookieSettings
  config: SessionConfig
  incomingId: string | null
  saved: boolean
  /** The CSRF token the session had when loaded (null for a new session). */
  initialToken: string | null
}

/** Where the request's session state lives on `ctx.state`: a symbol key, cheaper per request than a WeakMap entry. */
const SESSION_STATE = Symbol('session.state')
type StateHolder = { [SESSION_STATE]?: RequestSessionState }

/** The session config, resolved once per app and kept in the container as `session.config`. */
export function sessionConfig(app: Application): SessionConfig {
  if (!app.has('session.config')) app.singleton('session.config', () => resolveSessionConfig(app))
  return app.make<SessionConfig>('session.config')
}

/** The app's session store, built once and kept in the container as `session.store`. */
export function sessionStore(app: Application): SessionStore {
  if (!app.has('session.store')) app.singleton('session.store', () => createSessionStore(app, sessionConfig(app)))
  return app.make<SessionStore>('session.store')
}

export class SessionMiddleware extends Middleware {
  // Synchronous unless the store must be read or written: a visitor without a session cookie
  // costs no microtask turn here.
  override before(ctx: HttpContext): undefined | Promise<undefined> {
    const started = beginSession(this.app, ctx)
    return started instanceof Session ? undefined : started.then(() => undefined)
  }

  override after(ctx: HttpContext): undefined | Promise<void> {
    // A page or form asked for with JSON answers JSON (its flashed message taken back first).
    answerJsonFormSafely(ctx)
    return finishSession(ctx)
  }
}

/** `answerJsonForm`; a failure (a value JSON cannot hold) is logged and answered 500 `E_INTERNAL`. */
function answerJsonFormSafely(ctx: HttpContext): void {
  try {
    answerJsonForm(ctx)
  } catch (error) {
    ctx.app.log.error('http.json_form_failed', { path: ctx.route?.path, error: error instanceof Error ? error : String(error) })
    ctx.response.json({ message: 'Internal server error.', code: 'E_INTERNAL' }, 500)
  }
}

/** Loads (or starts) the request's session and sets `ctx.session`. */
export async function startSession(app: Application, ctx: HttpContext): Promise<Session> {
  return beginSession(app, ctx)
}

/** `startSession`, without a promise when there is no stored session to read. */
function beginSession(app: Application, ctx: HttpContext): Session | Promise<Session> {
  const config = sessionConfig(app)
  const baseStore = sessionStore(app)
  const cookie: SessionCookieSettings = { name: config.cookie, secure: ctx.request.isSecure(), maxAge: Math.round(config.lifetime * 60) }
  const bound = isRequestBound(baseStore) ? baseStore.bind(ctx, cookie) : null
  const store = bound ?? baseStore
  const rawId = bound ? bound.incomingId : (ctx.request.cookie(config.cookie) ?? null)
  const incomingId = rawId !== null && SESSION_ID_PATTERN.test(rawId) ? rawId : null
  const state: RequestSessionState = { session: null!, store, bound: bound !== null, cookie, config, incomingId: rawId, saved: false, initialToken: null }
  if (incomingId === null) return install(ctx, state, new Session(null))
  return loadSession(ctx, state, incomingId)
}

/** The stored session of `incomingId` (or a new one); without a promise when the store holds it at hand and it is live. */
function loadSession(ctx: HttpContext, state: RequestSessionState, incomingId: string): Session | Promise<Session> {
  const store = state.store as Partial<BoundSessionStore>
  if (state.bound && typeof store.readNow === 'function') {
    const data = store.readNow(incomingId)
    const now = Date.now()
    if (data === null) return install(ctx, state, new Session(null))
    if (!expired(data, state.config, now)) return install(ctx, state, new Session(incomingId, data, now))
  }
  return readSession(ctx, state, incomingId)
}

async function readSession(ctx: HttpContext, state: RequestSessionState, incomingId: string): Promise<Session> {
  const { store, config } = state
  let session: Session | null = null
  const data = await store.read(incomingId)
  if (data) {
    const now = Date.now()
    if (expired(data, config, now)) await store.destroy(incomingId)
    else session = new Session(incomingId, data, now)
  }
  return install(ctx, state, session ?? new Session(null))
}

/** Past the idle lifetime, or the absolute one however active. */
function expired(data: SessionData, config: SessionConfig, now: number): boolean {
  return now - data.lastActivity > config.lifetime * 60_000 || now - data.createdAt > config.absolute_lifetime * 60_000
}

function install(ctx: HttpContext, state: RequestSessionState, session: Session): Session {
  state.session = session
  state.initialToken = session.currentToken()
  ctx.session = session
  ;(ctx.state as StateHolder)[SESSION_STATE] = state
  return session
}

/**
 * Saves the request's session (once; later calls do nothing): destroys retired ids, writes the
 * data when needed and sets the cookie. Safe to call when no session was started.
 */
export async function saveSession(ctx: HttpContext): Promise<void> {
  await finishSession(ctx)
}

/** `saveSession`, without a promise when there is nothing to destroy or write. */
function finishSession(ctx: HttpContext): undefined | Promise<void> {
  const state = (ctx.state as StateHolder)[SESSION_STATE]
  if (!state || state.saved) return undefined
  state.saved = true
  announceToken(ctx, state)
  return state.session.retiredIds.length > 0 ? destroyRetired(ctx, state) : writeIfNeeded(ctx, state)
}

async function destroyRetired(ctx: HttpContext, state: RequestSessionState): Promise<void> {
  for (const id of state.session.retiredIds) await state.store.destroy(id)
  await writeIfNeeded(ctx, state)
}

/**
 * Sets `X-CSRF-TOKEN` when the token changed during the request. A session invalidated here
 * (a logout) had its token dropped: it gets a fresh one, so the next form needs no extra request.
 */
function announceToken(ctx: HttpContext, state: RequestSessionState): void {
  const { session, initialToken } = state
  if (initialToken !== null && session.currentToken() === null) session.token()
  const token = session.currentToken()
  if (token !== null && token !== initialToken) ctx.response.header('X-CSRF-TOKEN', token)
}

/** Writes the session and sets its cookie when it must be kept; else at most clears a stale cookie. */
function writeIfNeeded(ctx: HttpContext, state: RequestSessionState): undefined | Promise<void> {
  const { session, config, cookie } = state
  if (session.isNew && !session.isDirty) {
    // Nothing worth keeping: no write, no cookie. A stale cookie (expired or unknown id) is removed.
    if (state.incomingId !== null) ctx.response.clearCookie(config.cookie, { secure: cookie.secure })
    return undefined
  }
  // A HEAD request (a link preview, a monitor, a prefetch) shows no page, so it does not use up
  // the flash data (messages, errors, old input) meant for the next page.
  if (ctx.request.method === 'HEAD' && session.hasIncomingFlash) session.reflash()
  const now = Date.now()
  const touchEvery = Math.min(60_000, (config.lifetime * 60_000) / 4)
  const stale = now - session.lastActivity >= touchEvery
  if (!session.isDirty && !session.hasIncomingFlash && !stale) return undefined
  return write(ctx, state, now)
}

async function write(ctx: HttpContext, state: RequestSessionState, now: number): Promise<void> {
  const { session, store, config, cookie } = state
  const absoluteLeft = session.createdAt + config.absolute_lifetime * 60_000 - now
  const ttl = Math.max(1, Math.ceil(Math.min(config.lifetime * 60, absoluteLeft / 1000)))
  try {
    await store.write(session.id, session.toData(now), ttl)
  } catch (error) {
    if (!(error instanceof SessionTooLargeError) || !session.dropOldInput()) throw error
    ctx.app.log?.warn('session.old_input_dropped', { reason: 'the session cookie would exceed 4 KB' })
    await store.write(session.id, session.toData(now), ttl)
  }
  if (!state.bound) {
    ctx.response.cookie(config.cookie, session.id, { protect: 'signed', secure: cookie.secure, maxAge: ttl, httpOnly: true, sameSite: 'lax', path: '/' })
  }
}
