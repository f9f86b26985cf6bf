/**
 * @module auth/two-factor/totp
 * Time-based one-time passwords (RFC 6238) as authenticator apps expect them: HMAC-SHA-1, 30-second
 * steps, 6 digits, on the `otpauth` library. `matchTotp()` answers the time step a code belongs to
 * (within a window of steps either side of now), so the caller can refuse a step already used.
 */
import { lazyModule } from '../../support/lazy-module.js'

/** otpauth, loaded by the first TOTP operation. */
const otpauth = lazyModule<typeof import('otpauth')>('otpauth')

export interface TotpOptions {
  /** Digits of a code (default 6). */
  digits?: number
  /** Seconds per step (default 30). */
  period?: number
  /** Steps accepted either side of the current one (default 1: a code lives about 90 s). */
  window?: number
  /** The moment to check against, in milliseconds (default now). */
  at?: number
}

export const TOTP_DEFAULTS = { digits: 6, period: 30, window: 1 } as const

/** Bytes of a new secret: 160 bits, the size RFC 4226 recommends for HMAC-SHA-1. */
export const TOTP_SECRET_BYTES = 20

/** A new random secret, base32 (32 characters, no padding) as authenticator apps take it. */
export function generateTotpSecret(): string {
  const { Secret } = otpauth()
  return new Secret({ size: TOTP_SECRET_BYTES }).base32
}

/** The time step `at` (milliseconds) falls in. */
export function totpStep(at: number = Date.now(), period: number = TOTP_DEFAULTS.period): number {
  return Math.floor(at / 1000 / period)
}

/** The code of a base32 `secret` for time step `step`. */
export function totpCode(secret: string, step: number, digits: number = TOTP_DEFAULTS.digits): string {
  const { HOTP, Secret } = otpauth()
  return HOTP.generate({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits, counter: step })
}

/** The code of a base32 `secret` at a moment (milliseconds, default now). */
export function totpCodeAt(secret: string, at: number = Date.now(), options: Pick<TotpOptions, 'digits' | 'period'> = {}): string {
  return totpCode(secret, totpStep(at, options.period), options.digits)
}

/**
 * The time step whose code `code` is, among the current step and `window` steps either side, or
 * null (wrong code, wrong length, not digits). Compared in constant time.
 */
export function matchTotp(secret: string, code: string, options: TotpOptions = {}): number | null {
  const digits = options.digits ?? TOTP_DEFAULTS.digits
  if (code.length !== digits || !/^[0-9]+$/.test(code)) return null
  const step = totpStep(options.at ?? Date.now(), options.period)
  const { HOTP, Secret } = otpauth()
  const delta = HOTP.validate({ token: code, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits, counter: step, window: options.window ?? TOTP_DEFAULTS.window })
  return delta === null ? null : step + delta
}

/**
 * The `otpauth://totp/...` URI an authenticator app scans: label `Issuer:account`, the secret,
 * the issuer again (apps show it), and the defaults spelled out.
 */
export function otpauthUri(options: { issuer: string; account: string; secret: string }): string {
  const issuer = options.issuer.replaceAll(':', '')
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(options.account)}`
  const query = new URLSearchParams({ secret: options.secret, issuer, algorithm: 'SHA1', digits: String(TOTP_DEFAULTS.digits), period: String(TOTP_DEFAULTS.period) })
  return `otpauth://totp/${label}?${query.toString().replaceAll('+', '%20')}`
}

/** The secret in groups of four characters, for typing it in by hand. */
export function groupSecret(secret: string): string {
  return secret.match(/.{1,4}/g)?.join(' ') ?? secret
}
