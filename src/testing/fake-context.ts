/**
 * @module testing/fake-context
 * An HttpContext for one made-up request, built the way the server builds it, without a server:
 * for unit tests of middleware and guards.
 */
import type { Application } from '../foundation/application.js'
import type { HttpContext } from '../http/context.js'
import { CookieJar } from '../http/cookie-jar.js'
import { createContext } from '../http/create-context.js'
import { fakeIncomingMessage, type InjectRequest } from './inject.js'
// The context properties the providers add, as in a booted app.
import '../session/context-session.js'
import '../view/context-view.js'
import '../auth/auth.js'

/** The context of `request` (default `GET /`) in `app`; cookies signed with the app's jar if bound. */
export function fakeContext(app: Application, request: Partial<InjectRequest> = {}): HttpContext {
  const req = fakeIncomingMessage({ method: 'GET', url: '/', ...request })
  const cookies = app.has('cookies') ? app.make<CookieJar>('cookies') : new CookieJar('test-key-test-key-test-key-test-key-0123')
  return createContext(app, req, { trustProxy: 0, cookies, urlFor: (name) => name }).ctx
}
