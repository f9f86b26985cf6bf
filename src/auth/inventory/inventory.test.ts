import { describe, it, before, after, beforeEach } from 'node:test'
import assert from 'node:assert/strict'
import knex, { type Knex } from 'knex'
import { SqliteClient } from '../../database/sqlite-client.js'
import { AuthInventory, ALL_REASONS, type InventoryKind } from './index.js'
import { registerAuthKinds } from './auth-kinds.js'
import type { DeviceRevocations } from './device-cookies.js'
import { totpKind, trustedDevicesKind } from '../two-factor/inventory.js'
import { passkeysKind } from '../passkeys/inventory.js'

const USER = 1
const OTHER = 2
const at = (iso: string) => new Date(iso)

/** The web logins' table, as its migration makes it (the columns the kinds read). */
function createLoginTokens(db: Knex): Promise<void> {
  return db.schema.createTable('login_tokens', (t) => {
    t.increments('id')
    t.integer('user_id')
    t.string('token_hash')
    t.string('user_agent').nullable()
    t.dateTime('created_at').nullable()
  })
}

describe('AuthInventory', () => {
  let db: Knex
  let inventory: AuthInventory
  let devices: DeviceRevocations

  before(async () => {
    db = knex({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true })
    await db.schema.createTable('users', (t) => {
      t.increments('id')
      t.string('email')
      t.text('two_factor_secret').nullable()
      t.dateTime('two_factor_confirmed_at').nullable()
      t.bigInteger('two_factor_last_step').nullable()
    })
    await createLoginTokens(db)
    await db.schema.createTable('remember_tokens', (t) => {
      t.increments('id')
      t.integer('user_id')
      t.string('login_token_hash').nullable()
      t.dateTime('created_at')
    })
    await db.schema.createTable('user_tokens', (t) => {
      t.increments('id')
      t.integer('user_id')
      t.string('purpose')
      t.string('token_hash').unique()
      t.string('email').nullable()
      t.dateTime('created_at')
      t.dateTime('expires_at')
    })
    await db.schema.createTable('password_resets', (t) => {
      t.string('email')
      t.string('token')
      t.dateTime('created_at').nullable()
    })
    await db.schema.createTable('passkeys', (t) => {
      t.increments('id')
      t.integer('user_id')
      t.string('name')
      t.dateTime('created_at')
    })
    await db.schema.createTable('two_factor_recovery_codes', (t) => {
      t.increments('id')
      t.integer('user_id')
      t.string('code_hash')
    })
    await db.schema.createTable('auth_challenges', (t) => {
      t.increments('id')
      t.integer('user_id').nullable()
    })
  })
  after(async () => {
    await db.destroy()
  })

  beforeEach(async () => {
    for (const table of ['users', 'login_tokens', 'remember_tokens', 'user_tokens', 'password_resets', 'passkeys', 'two_factor_recovery_codes', 'auth_challenges']) await db(table).delete()
    inventory = new AuthInventory(() => db)
    devices = registerAuthKinds(inventory, { db: () => db, users: () => ({ table: 'users', key: 'id', email: 'email' }), resetTable: 'password_resets' })
    inventory.register(trustedDevicesKind())
    inventory.register(totpKind(() => ({ table: 'users', key: 'id' })))
    inventory.register(passkeysKind())
    await db('users').insert([
      { id: USER, email: 'u@example.test', two_factor_secret: 'x', two_factor_confirmed_at: at('2026-11-20T10:00:00Z') },
      { id: OTHER, email: 'o@example.test' },
    ])
    await db('login_tokens').insert([
      { user_id: USER, token_hash: 'here', created_at: new Date() },
      { user_id: USER, token_hash: 'there', created_at: new Date() },
      { user_id: OTHER, token_hash: 'other', created_at: new Date() },
    ])
    await db('remember_tokens').insert([
      { user_id: USER, login_token_hash: 'here', created_at: new Date() },
      { user_id: USER, login_token_hash: 'there', created_at: new Date() },
    ])
    const future = new Date(Date.now() + 3_600_000)
    await db('user_tokens').insert([
      { user_id: USER, purpose: 'verify_email', token_hash: 'v', email: 'intruder@example.test', created_at: new Date(), expires_at: future },
      { user_id: USER, purpose: 'secure', token_hash: 's', created_at: new Date(), expires_at: future },
      { user_id: USER, purpose: 'two_factor_trust', token_hash: 't', created_at: new Date(), expires_at: future },
    ])
    await db('password_resets').insert({ email: 'u@example.test', token: 'r', created_at: new Date() })
    await db('passkeys').insert([
      { user_id: USER, name: 'old', created_at: at('2026-11-20T11:59:59Z') },
      { user_id: USER, name: 'same second', created_at: at('2026-11-20T12:00:00Z') },
      { user_id: USER, name: 'new', created_at: at('2026-11-20T12:05:00Z') },
      { user_id: OTHER, name: 'theirs', created_at: at('2026-11-20T12:05:00Z') },
    ])
    await db('two_factor_recovery_codes').insert({ user_id: USER, code_hash: 'c' })
  })

  const count = async (table: string, where: Record<string, unknown> = { user_id: USER }) => (await db(table).where(where)).length
  const purposes = async () => (await db('user_tokens').where('user_id', USER).orderBy('purpose')).map((r) => r.purpose)

  it('a sign-in kind names itself on the recovery page (the TOTP enrolment: its own title)', () => {
    const totp = totpKind(() => ({ table: 'users', key: 'id' }))
    assert.equal(totp.signInMethod, true)
    assert.equal(totp.title, 'Authenticator app (two-factor codes)')
  })

  it('refuses a second kind of one name', () => {
    const kind: InventoryKind = { name: 'logins', endsOn: ALL_REASONS, list: async () => [], revokeOne: async () => 0, revokeAll: async () => 0 }
    assert.throws(() => inventory.register(kind), /already has a kind named "logins"/)
  })

  it('a password change keeps this login, its remember-me series, trusted browsers, passkeys and TOTP; ends the rest of the logins and pending e-mail changes', async () => {
    const counts = await inventory.revokeAll(USER, { reason: 'password_change', keepLoginHash: 'here' })
    assert.equal(counts.logins, 1)
    assert.deepEqual((await db('login_tokens').where('user_id', USER)).map((r) => r.token_hash), ['here'])
    assert.deepEqual((await db('remember_tokens').where('user_id', USER)).map((r) => r.login_token_hash), ['here'])
    assert.deepEqual(await purposes(), ['secure', 'two_factor_trust'])
    assert.equal(await count('passkeys'), 3)
    assert.ok((await db('users').where('id', USER).first()).two_factor_confirmed_at)
    assert.equal(await count('password_resets', { email: 'u@example.test' }), 1)
    assert.equal(await count('login_tokens', { user_id: OTHER }), 1, 'another user is untouched')
  })

  it('"This wasn\'t me" ends every login, mailed link and trusted browser and revokes device cookies; passkeys and TOTP stay', async () => {
    const before = Date.now()
    await inventory.revokeAll(USER, { reason: 'secure' })
    assert.equal(await count('login_tokens'), 0)
    assert.equal(await count('remember_tokens'), 0)
    assert.deepEqual(await purposes(), ['devices_revoked'])
    assert.equal(await count('password_resets', { email: 'u@example.test' }), 0)
    assert.equal(await count('passkeys'), 3)
    assert.equal(await devices.isCurrent(USER, Math.floor(before / 1000)), false, 'a cookie issued before is revoked')
    assert.equal(await devices.isCurrent(USER, Math.floor(before / 1000) + 3), true, 'a cookie issued later is known')
    assert.equal(await devices.isCurrent(OTHER, 0), true, 'another user\'s cookies are untouched')
  })

  it('revokeCreatedSince removes passkeys and TOTP created at or after the second of `since`, keeps older ones', async () => {
    const counts = await inventory.revokeCreatedSince(USER, at('2026-11-20T12:00:00.700Z'))
    assert.equal(counts.passkeys, 2)
    assert.equal(counts.totp, 0, 'TOTP was confirmed before')
    assert.deepEqual((await db('passkeys').where('user_id', USER)).map((r) => r.name), ['old'])
    assert.equal(await count('passkeys', { user_id: OTHER }), 1)
    await inventory.revokeCreatedSince(USER, at('2026-11-20T09:00:00Z'))
    const user = await db('users').where('id', USER).first()
    assert.equal(user.two_factor_confirmed_at, null)
    assert.equal(user.two_factor_secret, null)
    assert.equal(await count('two_factor_recovery_codes'), 0)
  })

  it('deletion ends every kind', async () => {
    await db.transaction((trx) => inventory.revokeAll(USER, { reason: 'delete', trx, deleting: true }))
    for (const table of ['login_tokens', 'remember_tokens', 'user_tokens', 'passkeys', 'two_factor_recovery_codes']) assert.equal(await count(table), 0, table)
    assert.equal(await count('password_resets', { email: 'u@example.test' }), 0)
  })

  it('lists the sign-in methods first; revokeOne ends one login and its remember-me series, once under concurrency', async () => {
    const items = await inventory.list(USER)
    assert.deepEqual(items.slice(0, 4).map((i) => i.kind), ['totp', 'passkeys', 'passkeys', 'passkeys'])
    assert.deepEqual(items.filter((i) => i.kind === 'mailed_links').map((i) => i.label).sort(), ['password_reset', 'secure'], 'a purpose a kind names (trusted browsers) is not a mailed link')
    assert.equal(items.filter((i) => i.kind === 'trusted_devices').length, 1)
    const there = (await db('login_tokens').where({ token_hash: 'there' }).first()).id
    const results = await Promise.all(Array.from({ length: 5 }, () => inventory.revokeOne(USER, 'logins', String(there))))
    assert.equal(results.reduce((a, b) => a + b, 0), 1)
    assert.deepEqual((await db('remember_tokens').where('user_id', USER)).map((r) => r.login_token_hash), ['here'])
    assert.equal(await inventory.revokeOne(OTHER, 'logins', String((await db('login_tokens').where({ token_hash: 'here' }).first()).id)), 0, 'not another user\'s')
    assert.equal(await inventory.revokeOne(USER, 'no_such_kind', '1'), 0)
  })

  it('reads the tables once: no revocation, list or device check asks the database about its schema', async () => {
    const schemaQueries: string[] = []
    const watch = (query: { sql: string }) => {
      if (/sqlite_master|pragma|information_schema/i.test(query.sql)) schemaQueries.push(query.sql)
    }
    await inventory.migrated.load()
    db.on('query', watch)
    try {
      await inventory.list(USER)
      await inventory.revokeOne(USER, 'passkeys', '999')
      await inventory.revokeCreatedSince(USER, at('2026-11-20T12:00:00Z'))
      await devices.isCurrent(USER, 0)
      await inventory.revokeAll(USER, { reason: 'secure' })
    } finally {
      db.off('query', watch)
    }
    assert.deepEqual(schemaQueries, [])
  })
})

describe('AuthInventory in an app without a feature\'s tables', () => {
  it('runs only the kinds whose tables the app has, and lists every registered kind', async () => {
    const db = knex({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true })
    try {
      await createLoginTokens(db)
      await db('login_tokens').insert({ user_id: USER, token_hash: 'here', created_at: new Date() })
      const inventory = new AuthInventory(() => db)
      registerAuthKinds(inventory, { db: () => db, users: () => ({ table: 'users', key: 'id', email: 'email' }), resetTable: 'password_resets' })
      inventory.register(passkeysKind())
      assert.ok(inventory.kind('passkeys'), 'registered whatever the tables (the inventory test reads every claim)')
      const counts = await db.transaction((trx) => inventory.revokeAll(USER, { reason: 'delete', trx, deleting: true }))
      assert.deepEqual(Object.keys(counts).sort(), ['logins', 'mailed_links'], 'the kinds of missing tables did not run')
      assert.equal(counts.logins, 1)
      assert.deepEqual(await inventory.list(USER), [])
      assert.equal(await inventory.revokeOne(USER, 'passkeys', '1'), 0)
    } finally {
      await db.destroy()
    }
  })
})
