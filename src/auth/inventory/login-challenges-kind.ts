/**
 * @module auth/inventory/login-challenges-kind
 * `login_challenges` (`auth_challenges`): passkey ceremonies and the API's pending second steps
 * (`mfa_token`), logins in progress: never listed, ended by every revocation. The table comes with
 * a core migration; in an app that has not run it the kind does not run.
 */
import { ALL_REASONS, type InventoryKind } from './index.js'
import { tableKind } from './table-kind.js'

/** Passkey ceremonies and pending API second steps: never listed, ended by every revocation. */
export function loginChallengesKind(): InventoryKind {
  return tableKind({ name: 'login_challenges', table: 'auth_challenges', endsOn: ALL_REASONS, unlisted: true, label: () => '' })
}
