/**
 * @module auth/passkeys
 * Passkeys (feature `passkeys`): what `trowel/auth` exports of it — the pages, the WebAuthn
 * service and its errors.
 */
export { PasskeyForms, PASSKEY_MESSAGES, defaultPasskeyName } from './passkey-forms.js'
export { Passkeys, PASSKEY_CHALLENGE_SECONDS, type Passkey, type PasskeyUser, type RelyingParty, type PasskeyAssertion, type PasskeyRefusal } from './passkeys.js'
export { relyingPartyOf } from './install.js'
export { PasskeyInvalidError, PasskeyLoginFailedError, PasskeyWrongAccountError } from './errors.js'
