/**
 * @module api/jwt/keys
 * The asymmetric keys of the JWT codec (`EdDSA`, `ES256`, `RS256`): reading a PEM from
 * `JWT_PRIVATE_KEY` or `previous_keys`, checking that it fits its algorithm, the public JWK
 * published at `/.well-known/jwks.json`, and its `kid` (the RFC 7638 thumbprint, so the same key
 * always has the same id in every process and no id has to be stored anywhere).
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto'
import { FrameworkError } from '../../foundation/framework-error.js'
import type { AsymmetricAlgorithm } from './types.js'

export const ASYMMETRIC_ALGORITHMS: readonly AsymmetricAlgorithm[] = ['EdDSA', 'ES256', 'RS256']

/** The smallest RSA modulus accepted (NIST SP 800-57: 2048 bits until 2030). */
export const MIN_RSA_BITS = 2048

/** A public key as published in a JWK Set. */
export interface PublicJwk {
  kty: string
  kid: string
  alg: AsymmetricAlgorithm
  use: 'sig'
  crv?: string
  x?: string
  y?: string
  n?: string
  e?: string
}

/** One asymmetric key, ready for fast-jwt (PEM strings) and for the JWK Set. */
export interface AsymmetricKey {
  algorithm: AsymmetricAlgorithm
  /** PKCS#8 PEM, or `null` for a key that only verifies (a public key in `previous_keys`). */
  privatePem: string | null
  /** SPKI PEM. */
  publicPem: string
  kid: string
  jwk: PublicJwk
  /** Length of the token's base64url signature segment (fixed per key). */
  signatureLength: number
}

/** Characters of unpadded base64url for `bytes` bytes. */
export function base64urlLength(bytes: number): number {
  return Math.ceil((bytes * 8) / 6)
}

/**
 * A PEM as people paste it: surrounding quotes dropped, and the literal `\n` of a one-line
 * environment variable turned into newlines (dotenv already does this inside double quotes; a
 * variable set by a process manager or a CI secret often still has them).
 */
export function normalisePem(text: string): string {
  let pem = text.trim()
  if (pem.length >= 2 && (pem[0] === '"' || pem[0] === "'") && pem.at(-1) === pem[0]) pem = pem.slice(1, -1).trim()
  return pem.replace(/\\r\\n|\\n/g, '\n').replace(/\r\n/g, '\n')
}

export function looksLikePem(value: unknown): value is string {
  return typeof value === 'string' && value.includes('-----BEGIN ')
}

/** The algorithm a key is for: Ed25519 → EdDSA, P-256 → ES256, RSA (≥ 2048 bits) → RS256. */
export function algorithmOfKey(key: KeyObject): AsymmetricAlgorithm | { unsupported: string } {
  const type = key.asymmetricKeyType
  const details = key.asymmetricKeyDetails ?? {}
  if (type === 'ed25519') return 'EdDSA'
  if (type === 'ec') {
    return details.namedCurve === 'prime256v1' ? 'ES256' : { unsupported: `an EC key on curve ${details.namedCurve ?? 'unknown'} (ES256 needs P-256)` }
  }
  if (type === 'rsa') {
    const bits = details.modulusLength ?? 0
    return bits >= MIN_RSA_BITS ? 'RS256' : { unsupported: `a ${bits}-bit RSA key (at least ${MIN_RSA_BITS} bits are required)` }
  }
  return { unsupported: `a key of type ${type ?? 'unknown'}` }
}

/** RFC 7638: SHA-256 of the required members, in lexicographic order, no whitespace; base64url. */
export function jwkThumbprint(jwk: { kty?: string; crv?: string; x?: string; y?: string; n?: string; e?: string }): string {
  let members: Record<string, unknown>
  if (jwk.kty === 'OKP') members = { crv: jwk.crv, kty: jwk.kty, x: jwk.x }
  else if (jwk.kty === 'EC') members = { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }
  else if (jwk.kty === 'RSA') members = { e: jwk.e, kty: jwk.kty, n: jwk.n }
  else throw new Error(`No thumbprint for key type ${String(jwk.kty)}.`)
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url')
}

/**
 * Reads one PEM key (private, or public when `allowPublic`), checks it is usable for JWTs and,
 * when `expected` is given, that it is a key for that algorithm. `where` names the setting in
 * error messages (`JWT_PRIVATE_KEY`, `DRIVERS.jwt.previous_keys[1]`).
 */
export function loadAsymmetricKey(
  text: string,
  options: { where: string; expected?: AsymmetricAlgorithm; allowPublic?: boolean },
): AsymmetricKey {
  const pem = normalisePem(text)
  let privateKey: KeyObject | null = null
  let publicKey: KeyObject
  try {
    if (/-----BEGIN (ENCRYPTED )?PRIVATE KEY-----|-----BEGIN (RSA|EC) PRIVATE KEY-----/.test(pem)) {
      privateKey = createPrivateKey({ key: pem, format: 'pem' })
      publicKey = createPublicKey(privateKey)
    } else if (options.allowPublic && /-----BEGIN (RSA )?PUBLIC KEY-----/.test(pem)) {
      publicKey = createPublicKey({ key: pem, format: 'pem' })
    } else {
      throw new Error(options.allowPublic ? 'not a PEM private or public key' : 'not a PEM private key')
    }
  } catch (cause) {
    throw new FrameworkError(
      'E_JWT_KEY_INVALID',
      `${options.where} is not a usable key (${(cause as Error).message}). ` +
        'It must be a PEM ' + (options.allowPublic ? 'private or public key' : 'private key') +
        ' ("-----BEGIN PRIVATE KEY-----..."); `node craft api:install --algorithm EdDSA` generates one.',
      { cause },
    )
  }
  const algorithm = algorithmOfKey(publicKey)
  if (typeof algorithm !== 'string') {
    throw new FrameworkError('E_JWT_KEY_INVALID', `${options.where} is ${algorithm.unsupported}; Trowel signs with Ed25519 (EdDSA), P-256 (ES256) or RSA (RS256).`)
  }
  if (options.expected && algorithm !== options.expected) {
    throw new FrameworkError(
      'E_JWT_KEY_MISMATCH',
      `${options.where} is a key for ${algorithm}, but config/api.ts sets DRIVERS.jwt.algorithm to ${options.expected}. ` +
        `Use the same algorithm, or generate a new key with \`node craft api:install --algorithm ${options.expected} --force\` after removing the old one from .env.`,
    )
  }
  const exported = publicKey.export({ format: 'jwk' }) as Record<string, string>
  const kid = jwkThumbprint(exported)
  const jwk: PublicJwk = { kty: exported.kty!, kid, alg: algorithm, use: 'sig' }
  for (const member of ['crv', 'x', 'y', 'n', 'e'] as const) if (exported[member] !== undefined) jwk[member] = exported[member]
  const signatureBytes =
    algorithm === 'RS256' ? Math.ceil((publicKey.asymmetricKeyDetails!.modulusLength ?? 0) / 8) : 64 // Ed25519 and P-256 (r ‖ s) are both 64 bytes
  return {
    algorithm,
    privatePem: privateKey ? (privateKey.export({ format: 'pem', type: 'pkcs8' }) as string) : null,
    publicPem: publicKey.export({ format: 'pem', type: 'spki' }) as string,
    kid,
    jwk,
    signatureLength: base64urlLength(signatureBytes),
  }
}
