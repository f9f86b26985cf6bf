/**
 * TwoFactor against a real database (SQLite, or PostgreSQL/MySQL with DB_CONNECTION and
 * DATABASE_URL): enrolment keeps one pending secret, confirmation turns TOTP on once and returns
 * 10 recovery codes stored hashed, a code is accepted once (of 20 concurrent requests exactly one),
 * recovery codes work once each, regeneration and disabling replace or remove everything, and a
 * secret written under a previous APP_KEY is rewritten under the current one on use.
 */
import { after, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createTestDatabase, type TestDatabase } from '../../database/testing.js'
import { Encrypter } from '../../support/encrypter.js'
import { TwoFactor, parseTotpCode, type TwoFactorDependencies } from './two-factor.js'
import { totpCode, totpStep } from './totp.js'
import { normalizeRecoveryCode, recoveryCodeHash, generateRecoveryCode } from './recovery-codes.js'

const KEY = 'k'.repeat(40)
const OLD_KEY = 'o'.repeat(40)
const T0 = 1_800_000_000_000

describe('TwoFactor', () => {
  let tdb: TestDatabase
  let clock = T0
  let forgotten: unknown[] = []

  function service(overrides: Partial<TwoFactorDependencies> = {}): TwoFactor {
    return new TwoFactor({
      db: () => tdb.knex,
      users: () => ({ table: tdb.table('users'), key: 'id' }),
      encrypter: new Encrypter(KEY, [OLD_KEY]),
      recoveryTable: tdb.table('two_factor_recovery_codes'),
      trustedDevices: { available: async () => true, forget: async (userId) => forgotten.push(userId) },
      now: () => clock,
      ...overrides,
    })
  }

  let userId = 0
  let nextEmail = 0
  async function newUser(): Promise<number> {
    const [row] = await tdb.knex(tdb.table('users')).insert({ email: `u${nextEmail++}@example.test` }).returning('id')
    return Number(typeof row === 'object' ? row.id : row)
  }
  const users = () => tdb.knex(tdb.table('users'))
  const codes = () => tdb.knex(tdb.table('two_factor_recovery_codes'))

  before(async () => {
    tdb = await createTestDatabase()
    await tdb.knex.schema.createTable(tdb.table('users'), (t) => {
      t.increments('id')
      t.string('email').notNullable()
      t.text('two_factor_secret').nullable()
      t.dateTime('two_factor_confirmed_at').nullable()
      t.bigInteger('two_factor_last_step').nullable()
    })
    await tdb.knex.schema.createTable(tdb.table('two_factor_recovery_codes'), (t) => {
      t.increments('id')
      t.integer('user_id').unsigned().notNullable().references('id').inTable(tdb.table('users')).onDelete('CASCADE')
      t.string('code_hash', 64).notNullable().unique()
      t.dateTime('created_at').notNullable()
    })
  })
  after(() => tdb.cleanup())
  beforeEach(async () => {
    clock = T0
    forgotten = []
    userId = await newUser()
  })

  /** Enrols `userId` at T0: its secret and recovery codes. */
  async function enrol(tf = service()): Promise<{ secret: string; recovery: string[] }> {
    const secret = tf.newSecret()
    const recovery = (await tf.confirm(userId, secret, totpCode(secret, totpStep(clock))))!
    assert.ok(recovery, 'confirm failed')
    return { secret, recovery }
  }

  it('a pending secret is sealed for one user and stored nowhere until confirmed', async () => {
    const tf = service()
    const secret = tf.newSecret()
    assert.match(secret, /^[A-Z2-7]{32}$/)
    assert.notEqual(tf.newSecret(), secret)
    const sealed = tf.sealForSession('pending', secret, userId)
    assert.ok(!sealed.includes(secret))
    assert.equal(tf.openFromSession('pending', sealed, userId), secret)
    const other = await newUser()
    assert.equal(tf.openFromSession('pending', sealed, other), null, 'bound to the enrolling user')
    assert.equal(tf.openFromSession('codes', sealed, userId), null, 'bound to its purpose')
    assert.equal(tf.openFromSession('pending', 'v1.tampered', userId), null)
    const row = await users().where('id', userId).first()
    assert.equal(row.two_factor_secret ?? null, null, 'nothing on the account before a code confirms it')
    assert.equal(await tf.isEnabled(userId), false)
  })

  it('confirms with the current code: on, 10 recovery codes stored hashed', async () => {
    const tf = service()
    const secret = tf.newSecret()
    assert.equal(await tf.confirm(userId, secret, '000000' === totpCode(secret, totpStep(T0)) ? '111111' : '000000'), null)
    assert.equal(await tf.isEnabled(userId), false)
    const recovery = (await tf.confirm(userId, secret, totpCode(secret, totpStep(T0))))!
    assert.equal(recovery.length, 10)
    assert.equal(new Set(recovery).size, 10)
    for (const code of recovery) assert.match(code, /^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$/)
    assert.equal(await tf.isEnabled(userId), true)
    assert.equal(await tf.remainingRecoveryCodes(userId), 10)
    const rows = await codes().where('user_id', userId)
    assert.deepEqual(rows.map((r) => r.code_hash).sort(), recovery.map((c) => recoveryCodeHash(c)).sort())
    for (const row of rows) for (const code of recovery) assert.ok(!JSON.stringify(row).toLowerCase().includes(code.replaceAll('-', '').slice(0, 8)))
    // On now: no second confirmation, not even with another secret.
    assert.equal(await tf.confirm(userId, secret, totpCode(secret, totpStep(T0) + 1)), null)
    const other = tf.newSecret()
    assert.equal(await tf.confirm(userId, other, totpCode(other, totpStep(T0) + 1)), null)
    const status = await tf.status(userId)
    assert.equal(status.enabled, true)
    assert.equal(status.recoveryCodes, 10)
  })

  it('of 20 concurrent confirmations with the right code, exactly one turns it on', async () => {
    const tf = service()
    const secret = tf.newSecret()
    const code = totpCode(secret, totpStep(T0))
    const results = await Promise.all(Array.from({ length: 20 }, () => tf.confirm(userId, secret, code)))
    assert.equal(results.filter(Boolean).length, 1)
    assert.equal(await tf.remainingRecoveryCodes(userId), 10)
  })

  it('accepts a code once; not the confirmation code, not an older one after a newer', async () => {
    const tf = service()
    const { secret } = await enrol(tf)
    const step = totpStep(T0)
    // The code that turned it on cannot log in.
    assert.equal(await tf.verifyCode(userId, totpCode(secret, step)), false)
    clock = T0 + 30_000
    assert.equal(await tf.verifyCode(userId, totpCode(secret, step + 1)), true)
    assert.equal(await tf.verifyCode(userId, totpCode(secret, step + 1)), false)
    clock = T0 + 90_000
    // Step + 2 is one behind now (step + 3): still in the window, and newer than the last one.
    assert.equal(await tf.verifyCode(userId, ` ${totpCode(secret, step + 2).slice(0, 3)} ${totpCode(secret, step + 2).slice(3)} `), true)
    // Step + 4 (ahead of the clock by one) is fine; step + 3 after it is not.
    assert.equal(await tf.verifyCode(userId, totpCode(secret, step + 4)), true)
    assert.equal(await tf.verifyCode(userId, totpCode(secret, step + 3)), false)
    // Out of the window.
    clock = T0 + 10 * 30_000
    const far = totpCode(secret, step + 7)
    if (![step + 9, step + 10, step + 11].some((s) => totpCode(secret, s) === far)) assert.equal(await tf.verifyCode(userId, far), false)
    const row = await users().where('id', userId).first()
    assert.equal(Number(row.two_factor_last_step), step + 4)
  })

  it('of 20 concurrent requests with the same code, exactly one succeeds', async () => {
    const tf = service()
    const { secret } = await enrol(tf)
    clock = T0 + 30_000
    const code = totpCode(secret, totpStep(clock))
    const results = await Promise.all(Array.from({ length: 20 }, () => tf.verifyCode(userId, code)))
    assert.equal(results.filter(Boolean).length, 1)
  })

  it('refuses malformed input without touching anything', async () => {
    const tf = service()
    await enrol(tf)
    for (const bad of [undefined, null, '', '12345', '1234567', 'abcdef', ['123456'], { code: '123456' }, '12 34 5']) {
      assert.equal(await tf.verifyCode(userId, bad), false)
      assert.equal(await tf.useRecoveryCode(userId, bad), false)
    }
    assert.equal(parseTotpCode(' 123 456 '), '123456')
    assert.equal(parseTotpCode('١٢٣٤٥٦'), null)
  })

  it('refuses codes of a user without TOTP', async () => {
    const tf = service()
    const secret = tf.newSecret()
    assert.equal(await tf.verifyCode(userId, totpCode(secret, totpStep(T0))), false)
    assert.equal(await tf.verifyCode(999_999, '123456'), false)
    assert.equal(await tf.isEnabled(999_999), false)
  })

  it('takes each recovery code once, however it is typed; not another user\'s', async () => {
    const tf = service()
    const { recovery } = await enrol(tf)
    assert.equal(await tf.useRecoveryCode(userId, recovery[0]!.toUpperCase().replaceAll('-', ' ')), true)
    assert.equal(await tf.useRecoveryCode(userId, recovery[0]), false)
    assert.equal(await tf.useRecoveryCode(userId, ` ${recovery[1]!.replaceAll('-', '')} `), true)
    assert.equal(await tf.remainingRecoveryCodes(userId), 8)
    assert.equal(await tf.useRecoveryCode(userId, generateRecoveryCode()), false)
    const mine = userId
    userId = await newUser()
    await enrol(tf)
    assert.equal(await tf.useRecoveryCode(userId, recovery[2]), false)
    assert.equal(await tf.remainingRecoveryCodes(mine), 8)
  })

  it('of 20 concurrent uses of one recovery code, exactly one wins', async () => {
    const tf = service()
    const { recovery } = await enrol(tf)
    const results = await Promise.all(Array.from({ length: 20 }, () => tf.useRecoveryCode(userId, recovery[3])))
    assert.equal(results.filter(Boolean).length, 1)
    assert.equal(await tf.remainingRecoveryCodes(userId), 9)
  })

  it('reads O, I and L as 0, 1 and 1', () => {
    assert.equal(normalizeRecoveryCode('oilx-0000-1111-abcd'), '011X00001111ABCD')
    assert.equal(recoveryCodeHash('OILX 0000 1111 ABCD'), recoveryCodeHash('011x-0000-1111-abcd'))
    assert.equal(normalizeRecoveryCode('u000-0000-0000-0000'), null)
    assert.equal(normalizeRecoveryCode('0000-0000-0000-000'), null)
  })

  it('regenerates: 10 new codes, the old ones dead', async () => {
    const tf = service()
    const { recovery } = await enrol(tf)
    const fresh = (await tf.regenerateRecoveryCodes(userId))!
    assert.equal(fresh.length, 10)
    assert.equal(await tf.remainingRecoveryCodes(userId), 10)
    assert.equal(await tf.useRecoveryCode(userId, recovery[0]), false)
    assert.equal(await tf.useRecoveryCode(userId, fresh[0]), true)
    const other = await newUser()
    assert.equal(await tf.regenerateRecoveryCodes(other), null)
    assert.equal(await tf.remainingRecoveryCodes(other), 0)
  })

  it('of 10 concurrent regenerations, exactly one set of 10 codes is left', async () => {
    const tf = service()
    await enrol(tf)
    // Every regeneration on a connection of its own, open already, so that they overlap.
    await Promise.all(Array.from({ length: 10 }, () => tdb.knex.transaction(async (trx) => trx.raw('select 1'))))
    const results = await Promise.all(Array.from({ length: 10 }, () => tf.regenerateRecoveryCodes(userId)))
    assert.ok(results.every((r) => r !== null && r.length === 10))
    const stored = (await codes().where('user_id', userId)).map((r) => r.code_hash as string).sort()
    assert.equal(stored.length, 10, `${stored.length} live recovery codes`)
    // They are the codes one of the regenerations answered.
    assert.ok(results.some((r) => JSON.stringify(r!.map((c) => recoveryCodeHash(c)).sort()) === JSON.stringify(stored)))
  })

  it('disables: secret, codes and trusted devices gone; enrolling again gives a new secret', async () => {
    const tf = service()
    const { secret, recovery } = await enrol(tf)
    assert.equal(await tf.disable(userId), true)
    assert.deepEqual(forgotten, [userId])
    const row = await users().where('id', userId).first()
    assert.equal(row.two_factor_secret, null)
    assert.equal(row.two_factor_confirmed_at, null)
    assert.equal(row.two_factor_last_step, null)
    assert.equal(await tf.remainingRecoveryCodes(userId), 0)
    assert.equal(await tf.useRecoveryCode(userId, recovery[0]), false)
    assert.equal(await tf.isEnabled(userId), false)
    clock = T0 + 60_000
    assert.equal(await tf.verifyCode(userId, totpCode(secret, totpStep(clock))), false)
    assert.equal(await tf.disable(userId), false)
  })

  it('rewrites a secret that only a previous key decrypts on the next accepted code', async () => {
    const before = service({ encrypter: new Encrypter(OLD_KEY) })
    const { secret } = await enrol(before)
    const stored = (await users().where('id', userId).first()).two_factor_secret
    // The key rotates: APP_KEY is new, the old one is in APP_PREVIOUS_KEYS.
    const rotated = service()
    assert.equal(await rotated.isEnabled(userId), true)
    clock = T0 + 30_000
    assert.equal(await rotated.verifyCode(userId, totpCode(secret, totpStep(clock))), true)
    const rewritten = (await users().where('id', userId).first()).two_factor_secret
    assert.notEqual(rewritten, stored)
    // Readable with the current key alone now.
    const currentOnly = service({ encrypter: new Encrypter(KEY) })
    clock = T0 + 60_000
    assert.equal(await currentOnly.verifyCode(userId, totpCode(secret, totpStep(clock))), true)
    // Without the old key at all, the old ciphertext would not have worked.
    await users().where('id', userId).update({ two_factor_secret: stored, two_factor_last_step: null })
    assert.equal(await currentOnly.verifyCode(userId, totpCode(secret, totpStep(clock))), false)
  })

  it('reencryptAll rewrites what a previous key made, counts the rest', async () => {
    await tdb.knex(tdb.table('two_factor_recovery_codes')).delete()
    await users().update({ two_factor_secret: null, two_factor_confirmed_at: null })
    const old = service({ encrypter: new Encrypter(OLD_KEY) })
    const { secret } = await enrol(old)
    const oldUser = userId
    userId = await newUser()
    await enrol(service())
    userId = await newUser()
    await users().where('id', userId).update({ two_factor_secret: new Encrypter('z'.repeat(40)).encrypt('JBSWY3DPEHPK3PXP', `${tdb.table('users')}.two_factor_secret:${userId}`) })
    assert.deepEqual(await service().reencryptAll(), { rewritten: 1, current: 1, unreadable: 1 })
    assert.deepEqual(await service().reencryptAll(), { rewritten: 0, current: 2, unreadable: 1 })
    userId = oldUser
    clock = T0 + 30_000
    assert.equal(await service({ encrypter: new Encrypter(KEY) }).verifyCode(userId, totpCode(secret, totpStep(clock))), true)
  })
})
