/**
 * @module trowel/auth
 * Web authentication: `Auth`, its provider and manager, the guard contract and the web guard,
 * the `Authenticates` mixin, the `auth`/`guest` middleware, the auth events and the logic behind
 * the generated auth controllers (`AuthForms`).
 */
import { Auth } from './auth.js'
import { authRoutes } from './auth-routes.js'

Auth.routes = authRoutes

export { Auth }
/** The same routes as `Auth.routes()` (the name `craft auth` writes into routes/web.ts). */
export { authRoutes }
export { AuthProvider } from './auth-provider.js'
export { AuthManager, type GuardFactory } from './auth-manager.js'
export { resolveAuthConfig, type AuthGuardsConfig, type ResolvedAuthConfig } from './auth-config.js'
export type { AuthUser, UserProvider, CredentialUserProvider } from './types.js'
export type { Guard } from './guards/guard.js'
export { BaseGuard, type GuardDependencies, type LoginChallenge } from './guards/base-guard.js'
export { WebGuard } from './guards/web/guard.js'
export { AUTH_COOKIE, type WebGuardDependencies } from './guards/web/types.js'
export { LoginTokenRepository } from './guards/web/login-token-repository.js'
export { ModelUserProvider, type AuthModel } from './user-providers/model-user-provider.js'
export { Authenticates } from './authenticates.js'
export { AuthForms } from './auth-forms.js'
export { AUTH_MESSAGES } from './messages.js'
export type { AuthEvents, AuthEventBase } from './events.js'
export { AuthenticationMiddleware } from './middleware/authentication-middleware.js'
export { GuestMiddleware } from './middleware/guest-middleware.js'
export { InitializeAuthMiddleware } from './middleware/initialize-auth-middleware.js'
export { VerifiedMiddleware } from './middleware/verified-middleware.js'
export { PasswordConfirmMiddleware, PASSWORD_CONFIRMED_AT, passwordRecentlyConfirmed, markPasswordConfirmed } from './middleware/password-confirm-middleware.js'
export { UserTokens, type UserTokenPurpose, type UserTokenRow } from './accounts/user-tokens.js'
export { isVerified } from './accounts/verification.js'
export { LoginRevoker, type Revoker, type RevokeOptions } from './accounts/login-revoker.js'
// Account features (one export line per module):
export { installSecurityNotifications, createSecureLink, SECURITY_NOTICES, SECURE_LINK_MINUTES } from './accounts/security-notifications.js'
export { secureAccount, type SecureOutcome } from './accounts/secure-account.js'
export { SecureAccountForms, SECURE_MESSAGES } from './accounts/secure-account-forms.js'
export { DefaultSecurityNotice, type SecurityNotice, type SecurityNoticeKind } from './mail/default-security-notice.js'
export { AccountForms, ACCOUNT_MESSAGES } from './accounts/account-forms.js'
export { DeviceForms, DEVICE_MESSAGES, currentLoginHash } from './accounts/device-forms.js'
export { devicesOf, describeUserAgent, DeviceRegistry, WebLoginDevices, type Device, type DeviceSource, type DeviceContext, type RevokedDevice } from './accounts/devices.js'
export { ActivityForms, ACTIVITY_LABELS, describeEvent, recentActivity, type ActivityEntry } from './accounts/activity-forms.js'
export { RememberTokenRepository, parseRememberCookie, type RememberTokenOptions, type RememberLookup, type RememberRow, type RememberState } from './guards/web/remember-token-repository.js'
export { REMEMBER_COOKIE } from './guards/web/types.js'
export { ConfirmPasswordForms, CONFIRM_PASSWORD_INCORRECT } from './accounts/confirm-password-forms.js'
export { EmailVerificationForms, VERIFICATION_MESSAGES } from './accounts/email-verification-forms.js'
export { sendVerificationEmail, requestEmailChange, verifyEmail, emailTaken, VERIFY_EMAIL_MINUTES, type VerifyEmailOutcome } from './accounts/email-verification.js'
export { AUTH_FEATURES, NOTIFICATIONS, type AuthFeature, type NotificationName } from './auth-config.js'
export { CredentialVerifier, BudgetExceededError, type VerifyResult } from './credential-verifier.js'
export { normalizeEmail } from './email.js'
export { Budget } from './throttle/budget.js'
export { PasswordBroker } from './password-broker.js'
export { Registrar, type RegisterData } from './registrar.js'
export { UnauthorizedError, AuthenticationError, InvalidCredentialsError, AuthConfigError, EmailNotVerifiedError, PasswordConfirmationRequiredError } from './errors.js'
export { Hasher, PasswordPolicy } from './hashing/index.js'
