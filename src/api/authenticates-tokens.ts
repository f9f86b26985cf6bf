/**
 * @module api/authenticates-tokens
 * The `AuthenticatesTokens` model mixin: `class User extends AuthenticatesTokens(Authenticates(Model))`.
 * `static tokenColumn` (default `api_token`) holds the SHA-256 hex digest of the user's current
 * JWT — never the JWT — and is added to the model's hidden fields. `generateJwt()` issues a JWT
 * whose `amr` is empty (no login made it). `createToken(name, { abilities, expiresIn })` creates
 * a personal access token (see api/personal-tokens).
 */
import type { ModelClass } from '../database/model.js'
import { boundModelApi, jwtServiceOf } from './jwt-service-registry.js'
import { PersonalTokenRepository, type CreateTokenOptions } from './personal-tokens/repository.js'
import type { DatabaseManager } from '../database/database-manager.js'
import { issuePersonalToken } from './personal-tokens/issue.js'

const TOKEN_HIDDEN = new WeakMap<object, { own: readonly string[]; column: string; fields: readonly string[] }>()

export function AuthenticatesTokens<T extends ModelClass>(Base: T) {
  abstract class TokenAuthenticatable extends Base {
    static tokenColumn = 'api_token'

    /** The model's hidden fields plus the token column (and the token epoch's, bookkeeping only). */
    static override hiddenFields(): readonly string[] {
      const own = super.hiddenFields()
      const column = (this as unknown as { tokenColumn: string }).tokenColumn
      // Read on every serialisation: the same array while the parent's list and the column stay.
      const known = TOKEN_HIDDEN.get(this)
      if (known && known.own === own && known.column === column) return known.fields
      const fields = Object.freeze([...new Set([...own, column, 'token_epoch', 'token_epoch_at'])])
      TOKEN_HIDDEN.set(this, { own, column, fields })
      return fields
    }

    /**
     * Issues a JWT for this user and stores its digest (replacing any earlier token). No login
     * made it, so its `amr` claim is empty: `mfa` treats it as a login without a second factor,
     * and nothing claims a password was typed.
     */
    async generateJwt(): Promise<string> {
      return jwtServiceOf(this).issue(this as unknown as { getKey(): unknown }, undefined, [])
    }

    /**
     * Creates a personal access token (`trw_<id>_<secret><checksum>`) for this user and returns
     * it: the only time its value is available (only its SHA-256 is stored). `abilities`: what it
     * may do (`['*']` = everything; default none); `expiresIn`: minutes (default: never expires).
     */
    async createToken(name: string, options: CreateTokenOptions = {}): Promise<string> {
      // The app's personal tokens and events; a script that set up a database but booted no app
      // (no ApiProvider) writes through the model's own database, and nobody is told.
      const api = boundModelApi(this)
      const model = this.constructor as unknown as { database(): DatabaseManager; connection?: string }
      const repository = api?.personalTokens() ?? new PersonalTokenRepository({ database: () => model.database(), connection: model.connection })
      const created = await issuePersonalToken(repository, this as never, name, options, { emitter: api?.events })
      return created.token
    }
  }
  return TokenAuthenticatable
}
