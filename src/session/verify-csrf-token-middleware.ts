/**
 * @module session/verify-csrf-token-middleware
 * `VerifyCsrfTokenMiddleware` (the `web` stack, after `SessionMiddleware`): every POST, PUT, PATCH
 * and DELETE must carry the session's CSRF token, as the body field `__token` (`_token` also
 * works) or the `X-CSRF-TOKEN` header, or it is refused with 419 `E_CSRF` before any handler
 * runs. Tokens in the query string are not accepted (they leak through logs and Referer).
 *
 * Exemption: a route is skipped when `ctx.state.csrfExempt === true`. `createContext` sets
 * that flag for routes declared exempt (e.g. the JWT token routes, which carry no cookie);
 * nothing else should set it.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { Middleware } from '../http/middleware.js'
import { CsrfError } from '../http/errors.js'
import type { HttpContext } from '../http/context.js'
import type { Session } from './session.js'

/** Methods that change state and so must carry the token. */
export const CSRF_PROTECTED_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

export class VerifyCsrfTokenMiddleware extends Middleware {
  override before(ctx: HttpContext): undefined {
    if (!CSRF_PROTECTED_METHODS.has(ctx.request.method)) return undefined
    if (ctx.state.csrfExempt === true) return undefined
    const expected = (ctx.session as Session).currentToken()
    const given = submittedToken(ctx)
    if (expected === null || given === null || !tokensMatch(expected, given)) throw new CsrfError()
    return undefined
  }
}

/** The token the request carries: body `__token`, body `_token`, then the `X-CSRF-TOKEN` header. */
export function submittedToken(ctx: HttpContext): string | null {
  const body = ctx.request.body ?? {}
  for (const field of ['__token', '_token']) {
    if (Object.hasOwn(body, field)) {
      const value = body[field]
      return typeof value === 'string' ? value : null
    }
  }
  return ctx.request.header('x-csrf-token') ?? null
}

/** Constant-time comparison (the digests have equal length whatever the input). */
export function tokensMatch(expected: string, given: string): boolean {
  if (expected.length === 0) return false
  const a = createHash('sha256').update(expected).digest()
  const b = createHash('sha256').update(given).digest()
  return timingSafeEqual(a, b)
}
