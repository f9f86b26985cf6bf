/**
 * @module support/framework-error
 * Configuration and programming errors (missing secret, unknown guard, unbound key). They carry a
 * code but no HTTP status; thrown at boot they stop the app with their message, and should one
 * reach a request it becomes a 500.
 */
export class FrameworkError extends Error {
  readonly code: string
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'FrameworkError'
    this.code = code
  }
}
