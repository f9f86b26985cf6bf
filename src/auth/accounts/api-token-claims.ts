/**
 * @module auth/accounts/api-token-claims
 * What a revocation (a password change or reset, "log out other devices", "This wasn't me") does
 * to the app's JWTs, so that mails and pages never claim more than is true:
 * - `ended`: `DRIVERS.jwt.revocation = 'epoch'` (every token carries its user's epoch, which the
 *   revocation raises), or `authenticates: true` (every token is checked against the stored one,
 *   which the revocation clears): the user's JWTs are refused from then on.
 * - `kept`: neither: a JWT verifies on its signature alone, so one already issued keeps working
 *   until it expires (never, with `expires: null`).
 * - null: the app has no JWT API (no `config/api.ts` jwt driver).
 */
import type { Application } from '../../foundation/application.js'

export type ApiTokenRevocation = 'ended' | 'kept'

export function apiTokenRevocation(app: Pick<Application, 'config'>): ApiTokenRevocation | null {
  const jwt = (app.config('api') as { DRIVERS?: { jwt?: unknown } } | undefined)?.DRIVERS?.jwt
  if (!jwt || typeof jwt !== 'object') return null
  const { revocation, authenticates } = jwt as { revocation?: unknown; authenticates?: unknown }
  return revocation === 'epoch' || authenticates === true ? 'ended' : 'kept'
}
