/**
 * @module http/errors
 * The HTTP layer's error catalogue. Every class carries its status and `E_` code; the reference
 * of every code is docs/errors.md.
 */
import { HttpError, type HttpErrorOptions } from './http-error.js'

/**
 * A class `name` extending `HttpError` whose constructor is `(message = defaultMessage, options?)`.
 * It is a real class: `instanceof`, `extends` and `error.name` (`name`) work as for one written out.
 */
function httpErrorClass(
  name: string,
  status: number,
  code: string,
  defaultMessage: string,
): new (message?: string, options?: HttpErrorOptions) => HttpError {
  const cls = class extends HttpError {
    constructor(message: string = defaultMessage, options?: HttpErrorOptions) {
      super(status, code, message, options)
    }
  }
  Object.defineProperty(cls, 'name', { value: name })
  return cls
}

export const BadRequestError = httpErrorClass('BadRequestError', 400, 'E_BAD_REQUEST', 'Bad request.')
export type BadRequestError = InstanceType<typeof BadRequestError>

/**
 * 401: the request is not authenticated. The base of every authentication failure, so
 * `instanceof UnauthorizedError` catches them all; subclasses carry their own code
 * (`E_TOKEN_MISSING`, `E_TOKEN_INVALID`, `E_INVALID_CREDENTIALS`...).
 */
export class UnauthorizedError extends HttpError {
  constructor(message = 'Unauthenticated.', options: HttpErrorOptions & { code?: string } = {}) {
    super(401, options.code ?? 'E_UNAUTHORIZED', message, options)
  }
}

export const ForbiddenError = httpErrorClass('ForbiddenError', 403, 'E_FORBIDDEN', 'Forbidden.')
export type ForbiddenError = InstanceType<typeof ForbiddenError>

export const NotFoundError = httpErrorClass('NotFoundError', 404, 'E_NOT_FOUND', 'Not found.')
export type NotFoundError = InstanceType<typeof NotFoundError>

export class MethodNotAllowedError extends HttpError {
  constructor(allowed: string[], options: HttpErrorOptions = {}) {
    super(405, 'E_METHOD_NOT_ALLOWED', 'Method not allowed.', {
      ...options,
      headers: { ...options.headers, Allow: allowed.join(', ') },
    })
  }
}

export const PayloadTooLargeError = httpErrorClass('PayloadTooLargeError', 413, 'E_PAYLOAD_TOO_LARGE', 'Request body too large.')
export type PayloadTooLargeError = InstanceType<typeof PayloadTooLargeError>

export const UnsupportedMediaTypeError = httpErrorClass('UnsupportedMediaTypeError', 415, 'E_UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type.')
export type UnsupportedMediaTypeError = InstanceType<typeof UnsupportedMediaTypeError>

export const CsrfError = httpErrorClass('CsrfError', 419, 'E_CSRF', 'Page expired: the form was stale or forged. Reload and try again.')
export type CsrfError = InstanceType<typeof CsrfError>

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

/**
 * 503: the server cannot take this work now and says when to come back (`Retry-After`, whole
 * seconds, at least 1). Thrown by the hasher when a password check would wait longer than
 * `GUARDS.hashing.max_wait` for a hashing thread, or when hashing itself failed (the reason is the
 * `cause`): never a "wrong password".
 */
export class ServerBusyError extends HttpError {
  readonly retryAfter: number
  constructor(retryAfterSeconds = 1, message = 'The server is busy. Please try again shortly.', options: { cause?: unknown } = {}) {
    const retryAfter = Number.isFinite(retryAfterSeconds) ? Math.max(1, Math.ceil(retryAfterSeconds)) : 1
    super(503, 'E_SERVER_BUSY', message, { headers: { 'Retry-After': String(retryAfter) }, cause: options.cause })
    this.retryAfter = retryAfter
  }
}

export const InternalError = httpErrorClass('InternalError', 500, 'E_INTERNAL', 'Internal server error.')
export type InternalError = InstanceType<typeof InternalError>

export const ServiceUnavailableError = httpErrorClass(
  'ServiceUnavailableError',
  503,
  'E_UNAVAILABLE',
  'Service temporarily unavailable. Please try again shortly.',
)
export type ServiceUnavailableError = InstanceType<typeof ServiceUnavailableError>
