/**
 * A software WebAuthn authenticator for black-box tests: one ES256 key pair, a hand-built "none"
 * attestation for registration and signed assertions for sign-in, standing in for the browser.
 * (The same authenticator as test/accounts/passkeys.test.ts, shared with other tests.)
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'
import { isoCBOR } from '@simplewebauthn/server/helpers'

export const ORIGIN = 'https://trowel.example.test'
export const RP_ID = 'trowel.example.test'

const b64url = (bytes: Uint8Array | Buffer | string) => Buffer.from(bytes as Uint8Array).toString('base64url')
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest()

/** UP | UV, plus BE | BS for a synced passkey, plus AT when attested credential data follows. */
function flags(options: { attested?: boolean; synced?: boolean }): number {
  return 0x01 | 0x04 | (options.synced ? 0x08 | 0x10 : 0) | (options.attested ? 0x40 : 0)
}

function counterBytes(counter: number): Buffer {
  const out = Buffer.alloc(4)
  out.writeUInt32BE(counter)
  return out
}

/** A software authenticator holding one ES256 credential. */
export class SoftAuthenticator {
  readonly credentialId: Buffer
  readonly privateKey: KeyObject
  readonly cosePublicKey: Uint8Array
  counter = 0
  userHandle: string | undefined

  constructor(
    readonly origin = ORIGIN,
    readonly rpId = RP_ID,
    readonly synced = false,
    idBytes = 32,
  ) {
    this.credentialId = randomBytes(idBytes)
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    this.privateKey = privateKey
    const jwk = publicKey.export({ format: 'jwk' })
    this.cosePublicKey = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
        [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
      ]),
    )
  }

  get id(): string {
    return b64url(this.credentialId)
  }

  /** The browser's answer to registration options (a "none" attestation). */
  attest(options: { challenge: string; user?: { id: string } }, overrides: { origin?: string; type?: string } = {}) {
    this.userHandle = options.user?.id
    const clientData = Buffer.from(JSON.stringify({ type: overrides.type ?? 'webauthn.create', challenge: options.challenge, origin: overrides.origin ?? this.origin, crossOrigin: false }))
    const idLength = Buffer.alloc(2)
    idLength.writeUInt16BE(this.credentialId.length)
    const authData = Buffer.concat([sha256(this.rpId), Buffer.from([flags({ attested: true, synced: this.synced })]), counterBytes(this.counter), Buffer.alloc(16), idLength, this.credentialId, Buffer.from(this.cosePublicKey)])
    const attestationObject = isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', new Uint8Array(authData)]]) as never)
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64url(clientData), attestationObject: b64url(attestationObject), transports: ['internal', 'hybrid'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    }
  }

  /** The browser's answer to sign-in options; the counter goes up by one unless `counter` is given. */
  assert(options: { challenge: string }, overrides: { counter?: number; origin?: string; tamper?: boolean } = {}) {
    this.counter = overrides.counter ?? this.counter + 1
    const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin: overrides.origin ?? this.origin, crossOrigin: false }))
    const authData = Buffer.concat([sha256(this.rpId), Buffer.from([flags({ synced: this.synced })]), counterBytes(this.counter)])
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), this.privateKey)
    if (overrides.tamper) signature[signature.length - 1] ^= 0xff
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64url(clientData), authenticatorData: b64url(authData), signature: b64url(signature), userHandle: this.userHandle },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    }
  }
}
