/**
 * @module errors
 * Every HTTP error class, as `errors.*` from `trowel`.
 */
export * from './http/errors.js'
export { HttpError } from './http/http-error.js'
export { FrameworkError } from './foundation/framework-error.js'
export { DatabaseUnavailableError, ModelNotFoundError, UniqueConstraintError, MigrationError } from './database/errors.js'
export { AuthenticationError, InvalidCredentialsError, PasswordResetRequiredError } from './auth/errors.js'
export { TokenMissingError, TokenInvalidError, ApiCredentialsError, ReauthFailedError } from './api/errors.js'
