/**
 * @module client/errors
 * `TrowelError`: every refusal the client receives, built from the server's JSON error body
 * (`{"message", "code", "errors"?, "mfa_token"?}`) and its `Retry-After` header. `code` is typed
 * with the `E_` codes a Trowel app answers (docs/errors.md), open to an app's own codes.
 */

/** The codes a Trowel app answers to a client (docs/errors.md, "HTTP errors"). */
export type KnownErrorCode =
  | 'E_BAD_REQUEST'
  | 'E_PASSKEY_INVALID'
  | 'E_UNAUTHORIZED'
  | 'E_INVALID_CREDENTIALS'
  | 'E_PASSWORD_RESET_REQUIRED'
  | 'E_TOKEN_MISSING'
  | 'E_TOKEN_INVALID'
  | 'E_REAUTH_FAILED'
  | 'E_TOKEN_REUSED'
  | 'E_MFA_REQUIRED'
  | 'E_PASSKEY_FAILED'
  | 'E_FORBIDDEN'
  | 'E_EMAIL_NOT_VERIFIED'
  | 'E_PASSKEY_WRONG_ACCOUNT'
  | 'E_PASSWORD_CONFIRMATION_REQUIRED'
  | 'E_NOT_FOUND'
  | 'E_METHOD_NOT_ALLOWED'
  | 'E_CONFLICT'
  | 'E_SOCIAL_LINK_REQUIRED'
  | 'E_PAYLOAD_TOO_LARGE'
  | 'E_UNSUPPORTED_MEDIA_TYPE'
  | 'E_CSRF'
  | 'E_VALIDATION'
  | 'E_TOO_MANY_REQUESTS'
  | 'E_INTERNAL'
  | 'E_MAIL'
  | 'E_MAIL_HEADER_INJECTION'
  | 'E_SERVER_BUSY'
  | 'E_UNAVAILABLE'
  /** The client's own: the server could not be reached, or answered something that is not JSON. */
  | 'E_NETWORK'
  | 'E_BAD_RESPONSE'

/** A known code, or an app's own (`string & {}` keeps editor completion for the known ones). */
export type ErrorCode = KnownErrorCode | (string & {})

/** Per field, its messages (422 `E_VALIDATION`). */
export type FieldErrors = Record<string, string[]>

export interface TrowelErrorInit {
  status: number
  code: ErrorCode
  message: string
  errors?: FieldErrors | null
  retryAfter?: number | null
  mfaToken?: string | null
  body?: unknown
  cause?: unknown
}

export class TrowelError extends Error {
  /** The HTTP status (0 when no answer came). */
  readonly status: number
  readonly code: ErrorCode
  /** 422 `E_VALIDATION`: the messages of each failing field; otherwise null. */
  readonly errors: FieldErrors | null
  /** 429 and 503: seconds to wait (`Retry-After`); otherwise null. */
  readonly retryAfter: number | null
  /** 401 `E_MFA_REQUIRED` from a token route: the token to send with the code to `auth.twoFactor`. */
  readonly mfaToken: string | null
  /** The answer's parsed body, as it came. */
  readonly body: unknown

  constructor(init: TrowelErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause })
    this.name = 'TrowelError'
    this.status = init.status
    this.code = init.code
    this.errors = init.errors ?? null
    this.retryAfter = init.retryAfter ?? null
    this.mfaToken = init.mfaToken ?? null
    this.body = init.body
  }
}

/** `Retry-After` as seconds: a number of seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null): number | null {
  if (value === null || value.trim() === '') return null
  if (/^\d+$/.test(value.trim())) return Number(value.trim())
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000))
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The error of an answer that is not ok, from its status, headers and (parsed) body. */
export function errorFromAnswer(status: number, headers: { get(name: string): string | null }, body: unknown): TrowelError {
  const record = isRecord(body) ? body : {}
  const code = typeof record.code === 'string' ? record.code : status >= 500 ? 'E_INTERNAL' : 'E_BAD_RESPONSE'
  const message = typeof record.message === 'string' ? record.message : `The server answered ${status}.`
  const errors = isRecord(record.errors) ? (record.errors as FieldErrors) : null
  const mfaToken = typeof record.mfa_token === 'string' ? record.mfa_token : null
  return new TrowelError({ status, code, message, errors, mfaToken, retryAfter: parseRetryAfter(headers.get('retry-after')), body })
}
