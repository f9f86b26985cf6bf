/**
 * @module api/personal-tokens/personal-bearer
 * A verified personal access token, in the shape the JWT guard keeps for a request: `payload.sub`
 * is the token's user (so `request.user()` and `auth.user()` work as for a JWT), `personal` the
 * stored token (name, abilities, expiry).
 */
import { sha256Hex, type JwtPayload } from '../jwt/index.js'
import type { VerifiedToken } from '../guards/jwt/types.js'
import type { PersonalToken } from './repository.js'

export class PersonalBearer implements VerifiedToken {
  readonly payload: JwtPayload
  #digest: string | undefined

  constructor(
    readonly token: string,
    readonly personal: PersonalToken,
  ) {
    this.payload = { sub: personal.userId, iat: Math.floor((personal.createdAt?.getTime() ?? 0) / 1000), version: null }
  }

  get digest(): string {
    return (this.#digest ??= sha256Hex(this.token))
  }
}
