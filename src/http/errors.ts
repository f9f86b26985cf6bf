/**
 * @module http/errors
 * The HTTP layer's error catalogue. Every class carries its status and `E_` code.
 */
import { HttpError, type HttpErrorOptions } from './http-error.js'

export class BadRequestError extends HttpError {
  constructor(message = 'Bad request.', options?: HttpErrorOptions) {
    super(400, 'E_BAD_REQUEST', message, options)
  }
}

export class UnauthorizedError extends HttpError {
  constructor(message = 'Unauthenticated.', options?: HttpErrorOptions) {
    super(401, 'E_UNAUTHORIZED', message, options)
  }
}

export class ForbiddenError extends HttpError {
  constructor(message = 'Forbidden.', options?: HttpErrorOptions) {
    super(403, 'E_FORBIDDEN', message, options)
  }
}

export class NotFoundError extends HttpError {
  constructor(message = 'Not found.', options?: HttpErrorOptions) {
    super(404, 'E_NOT_FOUND', message, options)
  }
}

export class MethodNotAllowedError extends HttpError {
  constructor(allowed: string[], options: HttpErrorOptions = {}) {
    super(405, 'E_METHOD_NOT_ALLOWED', 'Method not allowed.', {
      ...options,
      headers: { ...options.headers, Allow: allowed.join(', ') },
    })
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(message = 'Request body too large.', options?: HttpErrorOptions) {
    super(413, 'E_PAYLOAD_TOO_LARGE', message, options)
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor(message = 'Unsupported content type.', options?: HttpErrorOptions) {
    super(415, 'E_UNSUPPORTED_MEDIA_TYPE', message, options)
  }
}

export class CsrfError extends HttpError {
  constructor(message = 'Page expired: the form was stale or forged. Reload and try again.', options?: HttpErrorOptions) {
    super(419, 'E_CSRF', message, options)
  }
}

export class ValidationError extends HttpError {
  readonly errors: Record<string, string[]>
  /** Where a form goes back to when the request has no usable Referer (default: its own path if it answers GET, else `/`). */
  readonly back: string | undefined
  constructor(errors: Record<string, string[]>, message = 'The given data was invalid.', options: { back?: string } = {}) {
    super(422, 'E_VALIDATION', message, { details: { errors } })
    this.errors = errors
    this.back = options.back
  }
}

export class TooManyRequestsError extends HttpError {
  readonly retryAfter: number
  constructor(retryAfterSeconds: number, message = 'Too many attempts. Please try again later.') {
    const retryAfter = Math.max(1, Math.ceil(retryAfterSeconds))
    super(429, 'E_TOO_MANY_REQUESTS', message, { headers: { 'Retry-After': String(retryAfter) } })
    this.retryAfter = retryAfter
  }
}

export class InternalError extends HttpError {
  constructor(message = 'Internal server error.', options?: HttpErrorOptions) {
    super(500, 'E_INTERNAL', message, options)
  }
}

export class ServiceUnavailableError extends HttpError {
  constructor(message = 'Service temporarily unavailable. Please try again shortly.', options?: HttpErrorOptions) {
    super(503, 'E_UNAVAILABLE', message, options)
  }
}
