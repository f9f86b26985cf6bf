/**
 * @module api/jwks/jwks-route
 * `GET /.well-known/jwks.json` (added by `Api.routes()`): the JWK Set (RFC 7517) of the public
 * keys that verify this app's tokens — the one that signs now, then every `previous_keys` entry —
 * so another service can verify a Trowel token without any secret. Public, outside the `web`
 * stack (no session, no cookie), cacheable for five minutes. With an HMAC algorithm there is no
 * public key to publish: 404 `E_NOT_FOUND` (an empty set would invite clients to keep polling it).
 */
import { Route } from '../../routing/route.js'
import type { RouteDefinition } from '../../routing/route-definition.js'
import type { HttpContext } from '../../http/context.js'
import { NotFoundError } from '../../http/errors.js'
import { asApiRoute } from '../api-route.js'

/** How long verifiers may cache the set: short enough that a rotation is seen within minutes. */
export const JWKS_MAX_AGE_SECONDS = 300

function serveJwks(ctx: HttpContext): unknown {
  const jwks = ctx.app.make('api.jwt').jwks()
  if (jwks.keys.length === 0) {
    throw new NotFoundError('This API signs tokens with a shared secret (HMAC): it has no public keys to publish.')
  }
  ctx.response.header('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`)
  // application/json (what every JWKS client reads) rather than RFC 7517's jwk-set+json.
  return jwks
}

export function jwksRoute(path = '/.well-known/jwks.json'): RouteDefinition {
  return asApiRoute(Route.get(path, serveJwks).name('api.jwks'))
}
