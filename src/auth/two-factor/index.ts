/**
 * @module auth/two-factor
 * Two factors (feature `two_factor`): what `trowel/auth` exports of it — the TOTP and recovery
 * code service, the enrolment and challenge pages, the pending logins and trusted devices of the
 * second step.
 */
export { TwoFactor, parseTotpCode, RECOVERY_CODES_TABLE, type TwoFactorDependencies, type TwoFactorStatus } from './two-factor.js'
export { generateTotpSecret, matchTotp, otpauthUri, totpCode, totpCodeAt, totpStep, TOTP_DEFAULTS, type TotpOptions } from './totp.js'
export { generateRecoveryCodes, normalizeRecoveryCode, recoveryCodeHash, RECOVERY_CODE_COUNT } from './recovery-codes.js'
export { TwoFactorChallengeForms, CHALLENGE_MESSAGES, SECOND_STEP_AMR } from './challenge-forms.js'
export { PendingLogins, PENDING_LOGIN_KEY, PENDING_LOGIN_SECONDS, type PendingLogin, type PendingLookup } from './pending-login.js'
export { TrustedDevices, TRUST_COOKIE, TRUST_MINUTES } from './trusted-devices.js'
export { twoFactorLoginChallenge, MFA_TOKEN_SECONDS } from './login-challenge.js'
export { TwoFactorForms, TWO_FACTOR_MESSAGES } from './two-factor-forms.js'
export { qrCodeSvg } from './qr-code.js'
