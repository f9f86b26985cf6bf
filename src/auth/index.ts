/**
 * @module trowel/auth
 * Web authentication: `Auth`, its provider, the `Authenticates` mixin, the `auth`/`guest`
 * middleware and the logic behind the generated auth controllers (`AuthForms`).
 */
import { Auth } from './auth.js'
import { authRoutes } from './auth-routes.js'

Auth.routes = authRoutes

export { Auth }
export { AuthProvider } from './auth-provider.js'
export { AuthManager, type GuardFactory, type AuthGuardsConfig } from './auth-manager.js'
export { Authenticates } from './authenticates.js'
export { AuthForms } from './auth-forms.js'
export { AUTH_MESSAGES } from './messages.js'
export { AuthenticationMiddleware } from './middleware/authentication-middleware.js'
export { GuestMiddleware } from './middleware/guest-middleware.js'
export { InitializeAuthMiddleware } from './middleware/initialize-auth-middleware.js'
export { WebGuard, AUTH_COOKIE } from './guards/web-guard.js'
export type { Guard } from './guards/guard.js'
export { CredentialVerifier } from './credential-verifier.js'
export { PasswordBroker } from './password-broker.js'
export { LoginTokenRepository } from './login-token-repository.js'
export { AuthenticationError, InvalidCredentialsError, AuthConfigError } from './errors.js'
export { Hasher, PasswordPolicy } from './hashing/index.js'
