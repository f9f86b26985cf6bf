import { after, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import knex, { type Knex } from 'knex'
import { SqliteClient } from '../../../database/sqlite-client.js'
import { sha256Hex } from '../../tokens/index.js'
import { parseRememberCookie, RememberTokenRepository } from './remember-token-repository.js'

const db: Knex = knex({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true, pool: { min: 1, max: 1 } })
const LIFETIME = 60 // minutes

async function schema(): Promise<void> {
  await db.schema.dropTableIfExists('remember_tokens')
  await db.schema.dropTableIfExists('login_tokens')
  // As in stubs/migrations/create_account_tables.ts (without the users foreign key).
  await db.schema.createTable('remember_tokens', (table) => {
    table.increments('id')
    table.integer('user_id').notNullable()
    table.string('series_hash', 64).notNullable().unique()
    table.string('token_hash', 64).notNullable()
    table.string('previous_hash', 64).nullable()
    table.bigInteger('rotated_at').nullable()
    table.string('login_token_hash', 64).nullable()
    table.dateTime('created_at').notNullable()
    table.dateTime('expires_at').notNullable()
  })
  await db.schema.createTable('login_tokens', (table) => {
    table.increments('id')
    table.integer('user_id')
    table.string('token_hash', 64)
  })
}

describe('RememberTokenRepository', () => {
  let repo: RememberTokenRepository

  beforeEach(async () => {
    await schema()
    repo = new RememberTokenRepository(() => db, { lifetime: LIFETIME })
  })
  after(() => db.destroy())

  it('creates `<series>.<token>` and stores only their SHA-256, with the login it holds and its expiry', async () => {
    const before = Date.now()
    const cookie = await repo.create(7, 'login-hash')
    const parts = parseRememberCookie(cookie)!
    assert.ok(parts, cookie)
    assert.match(parts.series, /^[A-Za-z0-9_-]{43}$/)
    assert.match(parts.token, /^[A-Za-z0-9_-]{43}$/)
    const rows = await db('remember_tokens').select('*')
    assert.equal(rows.length, 1)
    const row = rows[0]
    assert.equal(row.series_hash, sha256Hex(parts.series))
    assert.equal(row.token_hash, sha256Hex(parts.token))
    assert.equal(row.login_token_hash, 'login-hash')
    assert.equal(row.previous_hash, null)
    const dump = JSON.stringify(rows)
    assert.ok(!dump.includes(parts.series) && !dump.includes(parts.token), 'a raw secret is stored')
    const expires = new Date(row.expires_at).getTime()
    assert.ok(expires >= before + LIFETIME * 60_000 && expires <= Date.now() + LIFETIME * 60_000)
    assert.equal(repo.maxAgeSeconds, 3600)
  })

  it('classifies a cookie: current, unknown series, malformed', async () => {
    const cookie = await repo.create(1, null)
    assert.equal((await repo.find(cookie)).state, 'current')
    const { series, token } = parseRememberCookie(cookie)!
    assert.equal((await repo.find(`${'A'.repeat(43)}.${token}`)).state, 'unknown')
    for (const bad of ['', 'nodot', `${series}.`, `.${token}`, `${series}.${token}.x`, `${series}.to ken`, 42, undefined]) {
      assert.equal((await repo.find(bad)).state, 'unknown', String(bad))
    }
  })

  it('rotates once: a new token, the old one kept as previous, the series and its new login recorded', async () => {
    const cookie = await repo.create(1, 'old-login')
    const found = await repo.find(cookie)
    if (found.state !== 'current') throw new Error(`expected current, got ${found.state}`)
    const next = await repo.rotate(found, 'new-login')
    assert.ok(next)
    assert.equal(parseRememberCookie(next)!.series, parseRememberCookie(cookie)!.series, 'the series names the device and stays')
    assert.notEqual(next, cookie)
    const row = await db('remember_tokens').first()
    assert.equal(row.token_hash, sha256Hex(parseRememberCookie(next)!.token))
    assert.equal(row.previous_hash, sha256Hex(parseRememberCookie(cookie)!.token))
    assert.equal(row.login_token_hash, 'new-login')
    assert.ok(row.rotated_at)
    assert.equal((await repo.find(next)).state, 'current')
    assert.equal((await repo.find(cookie, Number(row.rotated_at) + 1)).state, 'grace', 'right after the rotation: a second tab or a lost answer')
    assert.equal((await repo.find(cookie, Number(row.rotated_at) + 10_000)).state, 'theft', 'ten seconds after it')
  })

  it('of 20 rotations of the same token at once, exactly one wins', async () => {
    const cookie = await repo.create(1, null)
    const found = await repo.find(cookie)
    if (found.state === 'unknown') throw new Error('not found')
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => repo.rotate(found, `login-${i}`)))
    assert.equal(results.filter((r) => r !== null).length, 1)
    const row = await db('remember_tokens').first()
    assert.equal(row.previous_hash, sha256Hex(parseRememberCookie(cookie)!.token))
  })

  it('the replaced token is grace for less than reuse_window seconds after the rotation; later, or a token the series never had, is theft', async () => {
    const cookie = await repo.create(1, null)
    const found = await repo.find(cookie)
    if (found.state === 'unknown') throw new Error('not found')
    const rotatedAt = Date.now()
    const next = (await repo.rotate(found, null, rotatedAt))!
    assert.equal((await repo.find(cookie, rotatedAt)).state, 'grace', 'in the same millisecond')
    assert.equal((await repo.find(cookie, rotatedAt + 9_999)).state, 'grace', 'just inside the 10 s window')
    assert.equal((await repo.find(cookie, rotatedAt + 10_000)).state, 'theft', 'at 10 s')
    assert.equal((await repo.find(cookie, rotatedAt + 31_000)).state, 'theft', 'long after')
    const { series } = parseRememberCookie(next)!
    assert.equal((await repo.find(`${series}.${'B'.repeat(43)}`, rotatedAt + 1)).state, 'theft', 'a token the series never had')
    repo.reuseWindowSeconds = 0
    assert.equal((await repo.find(cookie, rotatedAt)).state, 'theft', 'the window is configurable (0: off)')
  })

  it('replaceSeries: a new series in place; the old cookie names nothing; the expiry stays', async () => {
    await db('login_tokens').insert([{ user_id: 1, token_hash: 'before' }, { user_id: 1, token_hash: 'after' }])
    const cookie = await repo.create(1, 'before')
    const found = await repo.find(cookie)
    if (found.state === 'unknown') throw new Error('not found')
    const replaced = await repo.replaceSeries(found, 'after')
    assert.ok(replaced)
    assert.notEqual(parseRememberCookie(replaced)!.series, parseRememberCookie(cookie)!.series)
    assert.equal((await repo.find(cookie)).state, 'unknown', 'the old cookie is no series: not theft, nothing restored')
    const now = await repo.find(replaced)
    if (now.state !== 'current') throw new Error(`expected current, got ${now.state}`)
    assert.equal(now.row.id, found.row.id, 'the same row')
    assert.equal(now.row.login_token_hash, 'after')
    assert.equal(new Date(now.row.expires_at as string).getTime(), new Date(found.row.expires_at as string).getTime())
    assert.equal(await repo.replaceSeries(found, 'after'), null, 'a second replacement of the same series loses')
    assert.equal(await repo.loginExists('after'), true)
    assert.equal(await repo.loginExists('gone'), false)
    assert.equal(await repo.loginExists(null), false)
  })

  it('an expired series is expired, whatever the token', async () => {
    const cookie = await repo.create(1, null)
    assert.equal((await repo.find(cookie, Date.now() + LIFETIME * 60_000 + 1000)).state, 'expired')
    await db('remember_tokens').update({ expires_at: new Date(Date.now() - 1000) })
    assert.equal((await repo.find(cookie)).state, 'expired')
  })

  it('endDevice ends the series and the web login it holds; forget ends the series a cookie names', async () => {
    await db('login_tokens').insert([{ user_id: 1, token_hash: 'held' }, { user_id: 1, token_hash: 'other' }])
    const cookie = await repo.create(1, 'held')
    const found = await repo.find(cookie)
    if (found.state === 'unknown') throw new Error('not found')
    await repo.endDevice(found.row)
    assert.equal((await db('remember_tokens').count({ n: '*' }))[0]!.n, 0)
    assert.deepEqual((await db('login_tokens').select('token_hash')).map((r) => r.token_hash), ['other'])

    const second = await repo.create(1, null)
    const third = await repo.create(1, null)
    await repo.forget(second)
    await repo.forget('not a cookie')
    assert.equal((await repo.find(second)).state, 'unknown')
    assert.equal((await repo.find(third)).state, 'current')
  })
})
