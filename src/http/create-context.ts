/**
 * @module http/create-context
 * Builds the per-request objects from a node request: `Request`, `Response`, the route match and
 * the `HttpContext`. The server's request handler and the testing helpers both build contexts
 * here, so a test sees a request exactly as the server would.
 */
import type { IncomingMessage } from 'node:http'
import type { HttpApplication } from './http-application.js'
import type { MatchResult } from '../routing/router.js'
import type { CookieJar } from './cookie-jar.js'
import { HttpContext } from './context.js'
import { Request } from './request.js'
import { Response, type UrlResolver } from './response.js'

export interface ContextOptions {
  /** Trusted reverse proxies in front of the app (`TRUST_PROXY`; 0 = none). */
  trustProxy: number
  /** The app's cookie jar (`app.make('cookies')`). */
  cookies: CookieJar
  /** Named-route URLs for `response.redirect({ route })`. */
  urlFor: UrlResolver
}

export interface RequestContext {
  ctx: HttpContext
  /** What the router answered for the request's method and path (404 and 405 included). */
  match: MatchResult
}

/** The context of one request: route parameters set, and `csrfExempt` marked for exempt routes. */
export function createContext(app: HttpApplication, req: IncomingMessage, options: ContextOptions): RequestContext {
  const request = new Request(req, { trustProxy: options.trustProxy, cookies: options.cookies })
  const response = new Response({
    cookies: options.cookies,
    secure: request.isSecure(),
    urlFor: options.urlFor,
    referer: request.header('referer'),
  })
  const match = app.router.match(request.method, request.path)
  const route = match.kind === 'found' ? match.route : null
  if (match.kind === 'found') request.params = match.params
  const ctx = new HttpContext(app, request, response, route?.info ?? null)
  if (route?.definition.csrfExempt) ctx.state.csrfExempt = true
  return { ctx, match }
}
