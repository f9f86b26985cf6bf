/**
 * @module session/context-session
 * Adds `ctx.session` (set by `SessionMiddleware` on routes of the `web` stack) and `ctx.hasSession`
 * to every `HttpContext`. Elsewhere `ctx.session` is a stand-in whose every use throws
 * `E_NO_SESSION`, so that a handler may still destructure `{ request, session }`.
 */
import { HttpContext } from '../http/context.js'
import { FrameworkError } from '../support/framework-error.js'
import type { Session } from './session.js'

declare module '../http/context.js' {
  interface HttpContext {
    /** The session (routes in the `web` stack); elsewhere a stand-in that throws `E_NO_SESSION` when used. */
    session: Session
    /** True when this request has a session (`ctx.session` may be used). */
    readonly hasSession: boolean
  }
}

const SESSION = Symbol('ctx.session')
type WithSession = HttpContext & { [SESSION]?: Session }

HttpContext.decorate('session', {
  get(this: WithSession) {
    return this[SESSION] ?? (missingSession(this.request.method, this.request.path) as Session)
  },
  set(this: WithSession, value: Session) {
    this[SESSION] = value
  },
})

HttpContext.decorate('hasSession', {
  get(this: WithSession) {
    return this[SESSION] !== undefined
  },
})

function missingSession(method: string, path: string): object {
  const fail = (): never => {
    throw new FrameworkError('E_NO_SESSION', `No session on ${method} ${path}: sessions exist only on routes in the "web" middleware stack.`)
  }
  return new Proxy(Object.create(null), {
    // `then` and symbols are probed by await and inspection: not a use of the session.
    get: (_target, key) => (key === 'then' || typeof key === 'symbol' ? undefined : fail()),
    set: fail,
    has: fail,
  })
}
