/**
 * Enumeration by cost, asserted by counting rather than timing: `CredentialVerifier` (the one
 * path behind POST /login, the API's authRoute and `auth.attempt`) calls the hasher exactly once
 * for an unknown e-mail and for a wrong password, never for over-long or mistyped input, and not
 * at all while throttled. A broken defence (skipping the dummy check, hashing a 1 MB password)
 * changes the counts.
 */
import { before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Hasher } from '../../src/auth/hashing/index.js'
import { CredentialVerifier } from '../../src/auth/credential-verifier.js'
import { LoginThrottle, MemoryThrottleStore } from '../../src/auth/throttle/index.js'
import { Logger } from '../../src/support/logger.js'
import { TooManyRequestsError } from '../../src/http/errors.js'
import { ModelUserProvider, type AuthModel } from '../../src/auth/user-providers/model-user-provider.js'

const PASSWORD = 'correct horse battery staple'

/** A Hasher (cheap parameters) that also counts `hash` calls. */
class CountingHasher extends Hasher {
  hashes = 0
  override async hash(password: string): Promise<string> {
    this.hashes++
    return super.hash(password)
  }
}

interface FakeUser {
  id: number
  email: string
  password: string | null
  getKey(): number
  getAuthPassword(): string | null
  forceFill(values: Record<string, unknown>): void
  save(): Promise<void>
}

describe('CredentialVerifier: the same hashing work whether or not the account exists', () => {
  let hasher: CountingHasher
  let users: Map<string, FakeUser>
  let logLines: string[]
  let verifier: CredentialVerifier
  const model = {
    passwordColumn: 'password',
    lookups: 0,
    async findForAuth(value: unknown) {
      this.lookups++
      return typeof value === 'string' ? users.get(value.trim().toLowerCase()) ?? null : null
    },
  }

  const provider = new ModelUserProvider(model as unknown as AuthModel)

  function user(id: number, email: string, password: string | null): FakeUser {
    return {
      id, email, password,
      getKey: () => id,
      getAuthPassword() { return this.password },
      forceFill(values) { Object.assign(this, values) },
      async save() {},
    }
  }

  before(async () => {
    hasher = new CountingHasher({ memoryCost: 1024, timeCost: 1 })
    logLines = []
    verifier = new CredentialVerifier(hasher, new LoginThrottle(new MemoryThrottleStore()), new Logger({ sink: (line) => logLines.push(line) }))
    users = new Map([
      ['known@example.test', user(1, 'known@example.test', await hasher.hash(PASSWORD))],
      ['bcrypt@example.test', user(2, 'bcrypt@example.test', '$2b$10$' + 'N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy')],
      ['nohash@example.test', user(3, 'nohash@example.test', null)],
    ])
    hasher.hashes = 0
  })

  async function cost(identifier: unknown, password: unknown, ip = '192.0.2.1'): Promise<{ result: unknown; verifications: number; hashes: number }> {
    const v0 = hasher.verifications
    const h0 = hasher.hashes
    const outcome = await verifier.verify(provider, identifier, password, ip)
    const result = outcome.ok ? outcome.user : null
    return { result, verifications: hasher.verifications - v0, hashes: hasher.hashes - h0 }
  }

  it('unknown e-mail and wrong password: null, one hasher call each, no hash()', async () => {
    const unknown = await cost('nobody@example.test', 'wrong password here', '192.0.2.10')
    const wrong = await cost('known@example.test', 'wrong password here', '192.0.2.11')
    assert.equal(unknown.result, null)
    assert.equal(wrong.result, null)
    assert.equal(unknown.verifications, 1, 'an unknown e-mail must cost one (dummy) verification')
    assert.equal(wrong.verifications, 1)
    assert.equal(unknown.hashes + wrong.hashes, 0)
  })

  it('an account with a bcrypt hash or no hash at all costs the same one call', async () => {
    assert.equal((await cost('bcrypt@example.test', 'wrong password here', '192.0.2.12')).verifications, 1)
    const none = await cost('nohash@example.test', PASSWORD, '192.0.2.13')
    assert.equal(none.result, null, 'a NULL password hash must never log in')
    assert.equal(none.verifications, 1)
  })

  it('the right password: the user, one verification (control)', async () => {
    const ok = await cost('  KNOWN@example.test ', PASSWORD, '192.0.2.14')
    assert.equal((ok.result as FakeUser | null)?.id, 1)
    assert.equal(ok.verifications, 1)
  })

  it('a 1 MB or 1025-character password, and non-string input, are refused without any hashing', async () => {
    const inputs: [unknown, unknown][] = [
      ['known@example.test', 'p'.repeat(1024 * 1024)],
      ['nobody@example.test', 'p'.repeat(1024 * 1024)],
      ['known@example.test', 'p'.repeat(1025)],
      ['known@example.test', { $ne: null }],
      ['known@example.test', [PASSWORD]],
      [{ $ne: null }, PASSWORD],
      [['known@example.test'], PASSWORD],
      [null, PASSWORD],
      ['known@example.test', ''],
      ['', PASSWORD],
      ['x'.repeat(400) + '@example.test', PASSWORD],
    ]
    for (const [i, [identifier, password]] of inputs.entries()) {
      const lookups = model.lookups
      const r = await cost(identifier, password, `198.51.100.${i}`)
      assert.equal(r.result, null)
      assert.equal(r.verifications, 0, `input ${i} was hashed`)
      assert.equal(r.hashes, 0)
      assert.equal(model.lookups, lookups, `input ${i} reached the database`)
    }
  })

  it('the right password while throttled: refused with no hasher call', async () => {
    for (let i = 0; i < 5; i++) await cost('known@example.test', `wrong ${i}`, '203.0.113.9')
    const v0 = hasher.verifications
    await assert.rejects(verifier.verify(provider, 'Known@Example.test', PASSWORD, '203.0.113.9'), TooManyRequestsError)
    assert.equal(hasher.verifications - v0, 0)
    const elsewhere = await cost('known@example.test', PASSWORD, '203.0.113.10')
    assert.equal((elsewhere.result as FakeUser | null)?.id, 1, 'another address keeps its budget')
  })

  it('a bcrypt hash is upgraded to argon2id after a successful login', async () => {
    const bcrypt = await import('@node-rs/bcrypt')
    users.get('bcrypt@example.test')!.password = await bcrypt.hash(PASSWORD, 4)
    const r = await cost('bcrypt@example.test', PASSWORD, '203.0.113.11')
    assert.equal((r.result as FakeUser | null)?.id, 2)
    assert.equal(r.hashes, 1)
    assert.match(users.get('bcrypt@example.test')!.password!, /^\$argon2id\$/)
  })

  it('a wrong password names the account it was for; an unknown address names none', async () => {
    const wrong = await verifier.verify(provider, 'known@example.test', 'wrong password here', '192.0.2.40')
    const unknown = await verifier.verify(provider, 'nobody@example.test', 'wrong password here', '192.0.2.41')
    assert.equal(wrong.ok, false)
    assert.equal((wrong.user as unknown as FakeUser | null)?.id, 1)
    assert.deepEqual(unknown, { ok: false, user: null })
  })

  it('the verifier never writes a password to the log', () => {
    for (const l of logLines) assert.ok(!l.includes(PASSWORD) && !l.includes('wrong password here'), l)
  })
})
