/**
 * @module api/jwt/check-claims
 * The claim rules a signed token must also pass: a non-empty string `sub`, a numeric `iat` not in
 * the future, `nbf` reached, the configured `version`, and (unless ignored) an `exp` not passed.
 * Expiry is checked last, so `JwtExpiredError` always means "valid in every other respect",
 * which is what reauth relies on.
 */
import { JwtExpiredError, JwtInvalidError, JwtVersionMismatchError } from './errors.js'
import type { JwtPayload } from './types.js'

export interface ClaimRules {
  /** The current time, milliseconds since the epoch. */
  nowMs: number
  leewaySeconds: number
  version: number | null
  ignoreExpiration: boolean
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value)
}

/** Checks `payload` against `rules` and returns it typed, or throws a `JwtError`. */
export function checkClaims(payload: Record<string, unknown>, rules: ClaimRules): JwtPayload {
  const { nowMs, leewaySeconds, version, ignoreExpiration } = rules
  const leewayMs = leewaySeconds * 1000
  const { sub, iat, nbf, exp, jti } = payload

  if (typeof sub !== 'string' || sub === '') {
    throw new JwtInvalidError('The token has no subject (sub).')
  }
  if (!isTime(iat)) {
    throw new JwtInvalidError('The token has no numeric issued-at time (iat).')
  }
  if (iat * 1000 > nowMs + leewayMs) {
    throw new JwtInvalidError('The token was issued in the future (iat).')
  }
  if (nbf !== undefined && (!isTime(nbf) || nbf * 1000 > nowMs + leewayMs)) {
    throw new JwtInvalidError('The token is not valid yet (nbf).')
  }
  if (exp !== undefined && !isTime(exp)) {
    throw new JwtInvalidError('The token expiry (exp) is not a number.')
  }
  if (jti !== undefined && typeof jti !== 'string') {
    throw new JwtInvalidError('The token id (jti) is not a string.')
  }
  if (!Object.hasOwn(payload, 'version') || payload.version !== version) {
    throw new JwtVersionMismatchError(version, payload.version)
  }
  if (!ignoreExpiration && exp !== undefined && nowMs >= exp * 1000 + leewayMs) {
    throw new JwtExpiredError(exp)
  }
  return { ...payload } as JwtPayload
}
