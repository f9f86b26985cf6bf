/**
 * @module api/authenticates-tokens
 * The `AuthenticatesTokens` model mixin: `class User extends AuthenticatesTokens(Authenticates(Model))`.
 * `static tokenColumn` (default `api_token`) holds the SHA-256 hex digest of the user's current
 * JWT — never the JWT — and is added to the model's hidden fields.
 */
import type { ModelClass } from '../database/model.js'
import { getJwtService } from './jwt-service-registry.js'

export function AuthenticatesTokens<T extends ModelClass>(Base: T) {
  abstract class TokenAuthenticatable extends Base {
    static tokenColumn = 'api_token'

    /** The model's hidden fields plus the token column. */
    static override hiddenFields(): string[] {
      const own = super.hiddenFields()
      const column = (this as unknown as { tokenColumn: string }).tokenColumn
      return own.includes(column) ? own : [...own, column]
    }

    /** Issues a JWT for this user and stores its digest (replacing any earlier token). */
    async generateJwt(): Promise<string> {
      return getJwtService().issue(this as unknown as { getKey(): unknown })
    }
  }
  return TokenAuthenticatable
}
