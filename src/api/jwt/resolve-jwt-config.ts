/**
 * @module api/jwt/resolve-jwt-config
 * Checks the `jwt` driver of `config/api.ts` once, when the codec is built, so that a missing
 * secret or a typo stops the app at startup with a message saying what to do, never as a 500
 * on the first request.
 */
import { FrameworkError } from '../../foundation/framework-error.js'
import { ASYMMETRIC_ALGORITHMS, looksLikePem, loadAsymmetricKey, type AsymmetricKey } from './keys.js'
import type { AsymmetricAlgorithm, HmacAlgorithm, JwtAlgorithm, JwtCodecConfig } from './types.js'

/** The smallest accepted secret, in UTF-8 bytes (the HMAC key is those bytes). */
export const MIN_SECRET_BYTES = 32

const HMAC_ALGORITHMS: readonly HmacAlgorithm[] = ['HS256', 'HS384', 'HS512']
const ALGORITHMS: readonly JwtAlgorithm[] = [...HMAC_ALGORITHMS, ...ASYMMETRIC_ALGORITHMS]

export function isAsymmetricAlgorithm(algorithm: string): algorithm is AsymmetricAlgorithm {
  return (ASYMMETRIC_ALGORITHMS as readonly string[]).includes(algorithm)
}

/** A validated, normalised driver config. */
export interface ResolvedJwtConfig {
  algorithm: JwtAlgorithm
  /** HMAC: the secret's bytes. Asymmetric: `null` (see `asymmetric`). */
  key: Buffer | null
  /** The key pair of an asymmetric algorithm, `null` for HMAC. */
  asymmetric: AsymmetricKey | null
  /** Token lifetime in whole seconds, or `null` for no `exp`. */
  lifetimeSeconds: number | null
  version: number | null
  leewaySeconds: number
}

function configError(code: string, message: string): FrameworkError {
  return new FrameworkError(code, message)
}

function resolveAlgorithm(algorithm: unknown): JwtAlgorithm {
  if (typeof algorithm === 'string' && (ALGORITHMS as readonly string[]).includes(algorithm)) {
    return algorithm as JwtAlgorithm
  }
  const asymmetric = typeof algorithm === 'string' && /^(RS|PS|ES)\d{3}$/.test(algorithm)
  throw configError(
    'E_JWT_ALGORITHM_UNSUPPORTED',
    `config/api.ts: DRIVERS.jwt.algorithm ${JSON.stringify(algorithm) ?? 'undefined'} is not supported; ` +
      `use one of ${ALGORITHMS.join(', ')}.` +
      (asymmetric ? ' Of the asymmetric algorithms only EdDSA, ES256 and RS256 are supported.' : ''),
  )
}

/**
 * The key of an asymmetric algorithm: `privateKey` (`env('JWT_PRIVATE_KEY')`), or `verifyKey` for
 * a codec that only verifies. A PEM in `secret` is accepted too, so a config that reads the key
 * with `secret: env('JWT_PRIVATE_KEY')` works.
 */
function resolveAsymmetricKey(algorithm: AsymmetricAlgorithm, config: JwtCodecConfig): AsymmetricKey {
  const verifyOnly = config.privateKey === undefined && config.verifyKey !== undefined && config.verifyKey !== null
  const text = verifyOnly ? config.verifyKey : (config.privateKey ?? (looksLikePem(config.secret) ? config.secret : undefined))
  if (text === undefined || text === null || text === '') {
    throw configError(
      'E_JWT_PRIVATE_KEY_MISSING',
      `JWT_PRIVATE_KEY is not set, and DRIVERS.jwt.algorithm is ${algorithm}. ` +
        `Run \`node craft api:install --algorithm ${algorithm} --force\` to generate a key pair in .env ` +
        "(config/api.ts reads it with private_key: env('JWT_PRIVATE_KEY')).",
    )
  }
  if (typeof text !== 'string') {
    throw configError('E_JWT_PRIVATE_KEY_MISSING', "JWT_PRIVATE_KEY must be a string: config/api.ts should read it with env('JWT_PRIVATE_KEY').")
  }
  return loadAsymmetricKey(text, { where: verifyOnly ? 'A previous key' : 'JWT_PRIVATE_KEY', expected: algorithm, allowPublic: verifyOnly })
}

function resolveSecret(secret: unknown): Buffer {
  if (secret === undefined || secret === null || secret === '') {
    throw configError(
      'E_JWT_SECRET_MISSING',
      'JWT_SECRET is not set. Run `node craft api:install` to generate one in .env ' +
        '(config/api.ts reads it with env(\'JWT_SECRET\')).',
    )
  }
  if (typeof secret !== 'string') {
    throw configError('E_JWT_SECRET_MISSING', 'JWT_SECRET must be a string: config/api.ts should read it with env(\'JWT_SECRET\').')
  }
  const key = Buffer.from(secret, 'utf8')
  if (key.length < MIN_SECRET_BYTES) {
    throw configError(
      'E_JWT_SECRET_TOO_SHORT',
      `JWT_SECRET is too short: ${key.length} bytes, at least ${MIN_SECRET_BYTES} are required. ` +
        'Remove it from .env and run `node craft api:install` to generate a new one.',
    )
  }
  return key
}

function resolveLifetime(expires: unknown): number | null {
  if (expires === null || expires === undefined) return null
  // 0 is refused rather than guessed at: Masonite reads it as "never", a clock as "at once".
  if (typeof expires !== 'number' || !Number.isFinite(expires) || expires <= 0) {
    throw configError(
      'E_JWT_CONFIG_INVALID',
      `config/api.ts: DRIVERS.jwt.expires must be a positive number of minutes (fractions allowed) or null, got ${String(expires)}.`,
    )
  }
  // exp = iat + round(expires × 60) s: under half a second that is iat, a token expired at once.
  return Math.round(expires * 60)
}

function resolveVersion(version: unknown): number | null {
  if (version === null || version === undefined) return null
  if (typeof version !== 'number' || !Number.isFinite(version)) {
    throw configError('E_JWT_CONFIG_INVALID', `config/api.ts: DRIVERS.jwt.version must be a number or null, got ${JSON.stringify(version)}.`)
  }
  return version
}

function resolveLeeway(leeway: unknown): number {
  if (leeway === undefined || leeway === null) return 0
  if (typeof leeway !== 'number' || !Number.isFinite(leeway) || leeway < 0) {
    throw configError('E_JWT_CONFIG_INVALID', `config/api.ts: DRIVERS.jwt.leeway must be a number of seconds >= 0, got ${String(leeway)}.`)
  }
  return leeway
}

/**
 * Validates the driver config and returns it normalised, or throws a `FrameworkError` naming
 * `JWT_SECRET` or `config/api.ts`.
 */
export function resolveJwtConfig(config: JwtCodecConfig): ResolvedJwtConfig {
  if (config === null || typeof config !== 'object') {
    throw configError('E_JWT_CONFIG_INVALID', 'config/api.ts: DRIVERS.jwt must be an object.')
  }
  const algorithm = resolveAlgorithm(config.algorithm)
  const asymmetric = isAsymmetricAlgorithm(algorithm) ? resolveAsymmetricKey(algorithm, config) : null
  return {
    algorithm,
    key: asymmetric ? null : resolveSecret(config.secret),
    asymmetric,
    lifetimeSeconds: resolveLifetime(config.expires),
    version: resolveVersion(config.version),
    leewaySeconds: resolveLeeway(config.leeway),
  }
}
