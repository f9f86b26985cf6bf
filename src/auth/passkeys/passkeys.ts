/**
 * @module auth/passkeys/passkeys
 * `Passkeys` (`app.make('auth.passkeys')`): the WebAuthn ceremonies over the `passkeys` table,
 * on @simplewebauthn/server (loaded on first use, so an app that never sees a passkey never loads it).
 *
 * - The relying party is the app's `APPLICATION.url` (APP_URL): its hostname is the RP ID, its
 *   origin the only origin accepted; `APPLICATION.name` (APP_NAME) is the name authenticators show.
 * - Every ceremony's challenge is 32 random bytes stored hashed in `auth_challenges` for 5 minutes
 *   and consumed by the answer that carries it, whether that answer then verifies or not: of any
 *   number of answers with one challenge, at most one is ever looked at.
 * - The user handle (`user.id` of the registration options) is opaque and stable without a column:
 *   the HMAC-SHA256 of the user's primary key under a key derived from APP_KEY. A sign-in finds
 *   its passkey by credential id (unique, one owner) and checks the signature with that passkey's
 *   key; the handle it carries is not compared, so rotating APP_KEY breaks no passkey.
 * - Registration asks for a discoverable credential (`residentKey: 'required'`) so sign-in needs
 *   no e-mail; user verification is preferred there and required at sign-in (a passkey sign-in
 *   replaces the password and a second factor, so the authenticator must have checked a PIN or a
 *   biometric).
 * - The signature counter is checked after the signature: a counter that does not grow (when
 *   either side is non-zero) is refused as a possible cloned authenticator (`reason: 'counter'`).
 * - A sign-in's passkey is the row whose `credential_id` equals the answer's id exactly: a
 *   case-insensitive collation (MySQL) may return a row whose id differs in case, which counts as
 *   unknown.
 * - What the browser says it supports (`transports`) is kept only as known AuthenticatorTransport
 *   values; a credential id longer than the column (512 characters) is refused.
 * - Each sign-in challenge created deletes the expired ones of its purpose (the `expires_at`
 *   index), so anonymous options calls leave at most five minutes' worth of rows behind.
 */
import { createHmac, hkdfSync, randomBytes } from 'node:crypto'
import type { Knex } from 'knex'
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server'
import type { AuthChallenges } from '../challenges/auth-challenges.js'
import { isUniqueViolation, UniqueConstraintError } from '../../database/errors.js'
import { driverOf } from '../../database/lookup-value.js'
import { PasskeyInvalidError } from './errors.js'

/** How long a ceremony's challenge is valid, in seconds. */
export const PASSKEY_CHALLENGE_SECONDS = 300
/** How long the browser lets the user answer, in milliseconds (within the challenge's life). */
const CEREMONY_TIMEOUT_MS = 240_000
/** The longest passkey name. */
export const PASSKEY_NAME_MAX = 100
/** The longest credential id stored (`passkeys.credential_id`, base64url). */
export const CREDENTIAL_ID_MAX = 512
/** The WebAuthn AuthenticatorTransport values: the only ones stored. */
const TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'])

const TABLE = 'passkeys'

/** The relying party: this app as authenticators know it. */
export interface RelyingParty {
  /** The RP ID: APP_URL's hostname. */
  id: string
  /** The one origin accepted: APP_URL's origin. */
  origin: string
  /** What authenticators show: APP_NAME. */
  name: string
}

/** One stored passkey, as the pages show it. */
export interface Passkey {
  id: number
  userId: number
  credentialId: string
  name: string
  /** `singleDevice` (bound to one authenticator) or `multiDevice` (may be synced). */
  deviceType: string
  /** Backed up (synced to the user's other devices) the last time it was used. */
  backedUp: boolean
  transports: string[]
  aaguid: string | null
  counter: number
  createdAt: Date | null
  lastUsedAt: Date | null
}

/** The user a registration is for. */
export interface PasskeyUser {
  id: unknown
  /** The sign-in name authenticators show (the e-mail address). */
  name: string
  /** The person's name, when known. */
  displayName?: string
}

/** Why a sign-in was refused. */
export type PasskeyRefusal = 'challenge' | 'unknown' | 'signature' | 'counter'

/** The outcome of checking a sign-in: the passkey and its owner, or why not. */
export type PasskeyAssertion =
  | { ok: true; passkey: Passkey; counter: number; backedUp: boolean; deviceType: string }
  | { ok: false; reason: PasskeyRefusal; passkey: Passkey | null; detail?: string }

type Library = typeof import('@simplewebauthn/server')
let library: Promise<Library> | undefined
function webauthn(): Promise<Library> {
  library ??= import('@simplewebauthn/server')
  return library
}

function toDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null
  const date = value instanceof Date ? value : new Date(value as string | number)
  return Number.isNaN(date.getTime()) ? null : date
}

function toPasskey(row: Record<string, unknown>): Passkey {
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    credentialId: String(row.credential_id),
    name: String(row.name),
    deviceType: String(row.device_type),
    backedUp: Boolean(row.backed_up) && row.backed_up !== '0',
    transports: typeof row.transports === 'string' && row.transports !== '' ? knownTransports(row.transports.split(',')) : [],
    aaguid: typeof row.aaguid === 'string' ? row.aaguid : null,
    counter: Number(row.counter ?? 0),
    createdAt: toDate(row.created_at),
    lastUsedAt: toDate(row.last_used_at),
  }
}

/** The known transports in `value` (an array of strings), deduplicated; anything else none. */
export function knownTransports(value: unknown): string[] {
  if (!Array.isArray(value)) return []
  return [...new Set(value.filter((t): t is string => typeof t === 'string' && TRANSPORTS.has(t)))]
}

/** The challenge a WebAuthn response carries (from its clientDataJSON), or null. */
export function challengeOf(response: { response?: { clientDataJSON?: unknown } }): string | null {
  const encoded = response.response?.clientDataJSON
  if (typeof encoded !== 'string' || encoded.length > 8192 || !/^[A-Za-z0-9_-]+={0,2}$/.test(encoded)) return null
  try {
    const data = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as { challenge?: unknown }
    return typeof data.challenge === 'string' ? data.challenge : null
  } catch {
    return null
  }
}

/**
 * The credential in a request body: the body itself (`{ id, rawId, response: {...}, type }`), or
 * under `response` or `credential`; null when there is none of that shape.
 */
export function credentialIn(body: unknown): Record<string, any> | null {
  const isCredential = (value: unknown): value is Record<string, any> => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return false
    const v = value as Record<string, any>
    return typeof v.id === 'string' && v.id !== '' && v.id.length <= 1024 && typeof v.rawId === 'string' && v.type === 'public-key' && !!v.response && typeof v.response === 'object' && typeof v.response.clientDataJSON === 'string'
  }
  if (isCredential(body)) return body
  const b = (body ?? {}) as Record<string, unknown>
  if (isCredential(b.response)) return b.response
  if (isCredential(b.credential)) return b.credential
  return null
}

export class Passkeys {
  readonly #db: () => Knex
  readonly #challenges: AuthChallenges
  readonly #rp: () => RelyingParty
  readonly #handleKey: Buffer

  constructor(options: { db: () => Knex; challenges: AuthChallenges; relyingParty: () => RelyingParty; appKey: Buffer }) {
    this.#db = options.db
    this.#challenges = options.challenges
    this.#rp = options.relyingParty
    this.#handleKey = Buffer.from(hkdfSync('sha256', options.appKey, Buffer.alloc(0), 'trowel passkey user handle', 32))
  }

  get relyingParty(): RelyingParty {
    return this.#rp()
  }

  /** What a ceremony's answer must show: the challenge it was given, this app's origin and RP ID. */
  #expected(challenge: string): { expectedChallenge: string; expectedOrigin: string; expectedRPID: string } {
    const rp = this.#rp()
    return { expectedChallenge: challenge, expectedOrigin: rp.origin, expectedRPID: rp.id }
  }

  /** The opaque, stable WebAuthn user handle of a user (32 bytes, base64url). */
  userHandle(userId: unknown): string {
    return createHmac('sha256', this.#handleKey).update(String(userId)).digest('base64url')
  }

  /** The user's passkeys, oldest first. */
  async list(userId: unknown): Promise<Passkey[]> {
    const rows = await this.#db()(TABLE).where('user_id', userId as number).orderBy('id')
    return rows.map(toPasskey)
  }

  /** How many passkeys the user has. */
  async count(userId: unknown): Promise<number> {
    const row = await this.#db()(TABLE).where('user_id', userId as number).count({ n: '*' }).first()
    return Number(row?.n ?? 0)
  }

  /** Whether the user has at least one passkey. */
  async has(userId: unknown): Promise<boolean> {
    return (await this.#db()(TABLE).where('user_id', userId as number).first('id')) !== undefined
  }

  /** The options for `navigator.credentials.create()` (a new passkey for `user`); stores the challenge. */
  async registrationOptions(user: PasskeyUser): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const { generateRegistrationOptions } = await webauthn()
    const rp = this.#rp()
    const existing = await this.list(user.id)
    const challenge = new Uint8Array(randomBytes(32))
    const options = await generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userName: user.name,
      userDisplayName: user.displayName ?? user.name,
      userID: new Uint8Array(Buffer.from(this.userHandle(user.id), 'base64url')),
      challenge,
      timeout: CEREMONY_TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    })
    await this.#challenges.create('passkey_register', user.id, PASSKEY_CHALLENGE_SECONDS, options.challenge)
    return options
  }

  /**
   * Verifies a registration response of `userId` and stores the passkey as `name`. The challenge
   * it answers is used up first. Throws PasskeyInvalidError when it does not verify.
   */
  async register(userId: unknown, response: Record<string, any>, name: string): Promise<Passkey> {
    const challenge = challengeOf(response)
    const issued = challenge === null ? null : await this.#challenges.consume(challenge, 'passkey_register')
    if (!issued || String(issued.user_id) !== String(userId)) throw new PasskeyInvalidError()
    const { verifyRegistrationResponse } = await webauthn()
    const expected = this.#expected(challenge!)
    let info
    try {
      const verified = await verifyRegistrationResponse({
        response: response as RegistrationResponseJSON,
        ...expected,
        // Preferred, not required, when adding one: the user has just typed their password.
        requireUserVerification: false,
      })
      if (!verified.verified) throw new Error('not verified')
      info = verified.registrationInfo
    } catch (error) {
      throw new PasskeyInvalidError(undefined, { cause: error })
    }
    const { credential } = info
    if (typeof credential.id !== 'string' || credential.id === '' || credential.id.length > CREDENTIAL_ID_MAX) throw new PasskeyInvalidError()
    const transports = knownTransports(credential.transports)
    const row = {
      user_id: userId,
      credential_id: credential.id,
      public_key: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: transports.length > 0 ? transports.join(',') : null,
      device_type: info.credentialDeviceType,
      backed_up: info.credentialBackedUp,
      aaguid: info.aaguid && info.aaguid !== '00000000-0000-0000-0000-000000000000' ? info.aaguid : null,
      name,
      created_at: new Date(),
      last_used_at: null,
    }
    let id: number
    try {
      const knex = this.#db()
      if (driverOf(knex) === 'postgres') {
        const rows = (await knex(TABLE).insert(row).returning('id')) as { id: unknown }[]
        id = Number(rows[0]?.id)
      } else {
        id = Number(((await knex(TABLE).insert(row)) as unknown[])[0])
      }
    } catch (error) {
      if (error instanceof UniqueConstraintError || isUniqueViolation(error)) throw new PasskeyInvalidError('This passkey is already registered.')
      throw error
    }
    return toPasskey({ ...row, id })
  }

  /** The options for `navigator.credentials.get()` with discoverable credentials; stores the challenge. */
  async authenticationOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const { generateAuthenticationOptions } = await webauthn()
    const options = await generateAuthenticationOptions({
      rpID: this.#rp().id,
      allowCredentials: [],
      challenge: new Uint8Array(randomBytes(32)),
      timeout: CEREMONY_TIMEOUT_MS,
      userVerification: 'required',
    })
    // Expired sign-in challenges go as new ones come (the hourly prune would let a flood pile up).
    await this.#db()('auth_challenges').where('purpose', 'passkey_login').andWhere('expires_at', '<=', new Date()).delete()
    await this.#challenges.create('passkey_login', null, PASSKEY_CHALLENGE_SECONDS, options.challenge)
    return options
  }

  /**
   * Checks a sign-in response: its challenge (used up here), its passkey, its signature and its
   * counter. Stores nothing else: call `recordUse()` with the outcome to accept it.
   */
  async verifyAssertion(response: Record<string, any>): Promise<PasskeyAssertion> {
    const challenge = challengeOf(response)
    const issued = challenge === null ? null : await this.#challenges.consume(challenge, 'passkey_login')
    const id = String(response.id)
    const found = await this.#db()(TABLE).where('credential_id', id).first()
    // Exactly this id: a case-insensitive collation may match one differing in case.
    const row = found && String(found.credential_id) === id ? found : undefined
    const passkey = row ? toPasskey(row) : null
    // A used, expired or unknown challenge: refused before any verification (the passkey, when it
    // names one of ours, only says whose account the attempt was against).
    if (!issued) return { ok: false, reason: 'challenge', passkey }
    if (!row || !passkey) return { ok: false, reason: 'unknown', passkey: null }
    const { verifyAuthenticationResponse } = await webauthn()
    const expected = this.#expected(challenge!)
    let info
    try {
      const verified = await verifyAuthenticationResponse({
        response: response as AuthenticationResponseJSON,
        ...expected,
        // The stored counter is compared below, once the signature is known to be good: a forged
        // answer must not pass for a cloned authenticator.
        credential: { id: passkey.credentialId, publicKey: new Uint8Array(Buffer.from(String(row.public_key), 'base64url')), counter: 0, transports: passkey.transports },
        requireUserVerification: true,
      })
      if (!verified.verified) return { ok: false, reason: 'signature', passkey }
      info = verified.authenticationInfo
    } catch (error) {
      return { ok: false, reason: 'signature', passkey, detail: error instanceof Error ? error.message : String(error) }
    }
    const counter = info.newCounter
    if ((counter > 0 || passkey.counter > 0) && counter <= passkey.counter) {
      return { ok: false, reason: 'counter', passkey, detail: `counter ${counter} after ${passkey.counter}` }
    }
    return { ok: true, passkey, counter, backedUp: info.credentialBackedUp, deviceType: info.credentialDeviceType }
  }

  /**
   * Records an accepted sign-in: the new counter, the backup state, the time. The update is
   * conditional on the counter read before: false when another sign-in with this passkey got there
   * first with a counter as high (two copies of one authenticator), and nothing is written.
   */
  async recordUse(assertion: Extract<PasskeyAssertion, { ok: true }>): Promise<boolean> {
    const { passkey } = assertion
    const updated = await this.#db()(TABLE)
      .where({ id: passkey.id })
      .andWhere((q) => {
        // A zero counter (an authenticator without one, e.g. a synced passkey) stays zero.
        if (assertion.counter === 0) q.where('counter', 0)
        else q.where('counter', '<', assertion.counter)
      })
      .update({ counter: assertion.counter, backed_up: assertion.backedUp, device_type: assertion.deviceType, last_used_at: new Date() })
    return updated === 1
  }

  /** The user's passkey `id`, or null (unknown, malformed, or another user's). */
  async find(userId: unknown, id: unknown): Promise<Passkey | null> {
    const key = typeof id === 'number' ? id : typeof id === 'string' && /^[1-9]\d{0,15}$/.test(id) ? Number(id) : null
    if (key === null || !Number.isSafeInteger(key)) return null
    const row = await this.#db()(TABLE).where({ id: key, user_id: userId as number }).first()
    return row ? toPasskey(row) : null
  }

  /** Removes the user's passkey `id`: the removed passkey, or null (unknown or another user's). */
  async remove(userId: unknown, id: unknown): Promise<Passkey | null> {
    const passkey = await this.find(userId, id)
    if (!passkey) return null
    const deleted = await this.#db()(TABLE).where({ id: passkey.id, user_id: userId as number }).delete()
    return deleted === 1 ? passkey : null
  }
}
