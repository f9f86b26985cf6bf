import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseManager, getDatabase, setDatabase } from '../../../database/database-manager.js'
import { UNAVAILABLE } from '../../../database/prepared-lookup.js'
import { sha256Hex } from '../../tokens/index.js'
import { LoginTokenRepository } from './login-token-repository.js'

const USERS = { table: 'users', primaryKey: 'id' }

describe('LoginTokenRepository.findWithUserNow (the login and its user in one read)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trowel-login-tokens-'))
  let previous: DatabaseManager | undefined
  let repo: LoginTokenRepository

  before(async () => {
    try {
      previous = getDatabase()
    } catch {
      previous = undefined
    }
    setDatabase(new DatabaseManager({ default: 'sqlite', sqlite: { driver: 'sqlite', database: join(dir, 'app.sqlite') } }, dir))
    const knex = getDatabase().connection()
    await knex.schema.createTable('users', (t) => {
      t.increments('id')
      t.string('email')
      t.dateTime('created_at')
    })
    await knex.schema.createTable('login_tokens', (t) => {
      t.increments('id')
      t.integer('user_id')
      t.string('token_hash', 64).unique()
      t.string('ip', 64).nullable()
      t.string('user_agent').nullable()
      t.dateTime('created_at')
      t.dateTime('last_used_at').nullable()
    })
    await knex('users').insert({ email: 'ada@example.test', created_at: new Date('2026-01-02T03:04:05Z') })
    repo = new LoginTokenRepository(() => getDatabase(), { table: 'login_tokens', lifetime: 60, idleTimeout: 30 })
  })

  after(async () => {
    await getDatabase().close()
    setDatabase(previous)
    rmSync(dir, { recursive: true, force: true })
  })

  it('answers the user id and the user row (its own columns, not the login\'s) for a current login', async () => {
    const token = await repo.create(1)
    // The kept handle comes with a first look-up; before it nothing runs synchronously.
    assert.equal(await repo.findUserId(token), 1)
    const found = repo.findWithUserNow(sha256Hex(token), USERS)
    assert.notEqual(found, UNAVAILABLE)
    const { userId, user } = found as Exclude<typeof found, typeof UNAVAILABLE>
    assert.equal(userId, 1)
    assert.deepEqual(Object.keys(user), ['id', 'email', 'created_at'])
    assert.equal(user.email, 'ada@example.test')
    assert.equal(new Date(user.created_at as number).toISOString(), '2026-01-02T03:04:05.000Z')
  })

  it('leaves to findUserId (UNAVAILABLE) an unknown token, a login past its lifetime or idle timeout, and one due a touch', async () => {
    const knex = getDatabase().connection()
    assert.equal(repo.findWithUserNow(sha256Hex('no-such-token-xxxxxxxxxxxxxxx'), USERS), UNAVAILABLE)
    const old = await repo.create(1)
    await knex('login_tokens').where('token_hash', sha256Hex(old)).update({ created_at: new Date(Date.now() - 61 * 60_000), last_used_at: new Date() })
    assert.equal(repo.findWithUserNow(sha256Hex(old), USERS), UNAVAILABLE)
    assert.equal(await repo.findUserId(old), null, 'findUserId ends it')
    const idle = await repo.create(1)
    await knex('login_tokens').where('token_hash', sha256Hex(idle)).update({ last_used_at: new Date(Date.now() - 31 * 60_000) })
    assert.equal(repo.findWithUserNow(sha256Hex(idle), USERS), UNAVAILABLE)
    const due = await repo.create(1)
    await knex('login_tokens').where('token_hash', sha256Hex(due)).update({ last_used_at: new Date(Date.now() - 2 * 60_000) })
    assert.equal(repo.findWithUserNow(sha256Hex(due), USERS), UNAVAILABLE)
    assert.equal(await repo.findUserId(due), 1, 'findUserId moves last_used_at on')
    assert.notEqual(repo.findWithUserNow(sha256Hex(due), USERS), UNAVAILABLE)
  })

  it('refuses identifiers it cannot put in SQL', () => {
    assert.equal(repo.findWithUserNow('x'.repeat(64), { table: 'users; drop table users', primaryKey: 'id' }), UNAVAILABLE)
  })
})
