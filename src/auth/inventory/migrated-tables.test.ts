import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import knex from 'knex'
import { SqliteClient } from '../../database/sqlite-client.js'
import { MigratedTables } from './migrated-tables.js'

describe('MigratedTables', () => {
  it('answers from one read: the tables, and the columns of the tables it watches; a later read sees a migration', async () => {
    const db = knex({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true })
    try {
      await db.schema.createTable('users', (t) => {
        t.increments('id')
        t.string('email')
      })
      const migrated = new MigratedTables(() => db, () => ['users', 'user_tokens'])
      assert.throws(() => migrated.has('users'), /await ready\(\)/, 'asked before it was read')
      let queries = 0
      db.on('query', () => queries++)
      await migrated.ready()
      const reads = queries
      assert.ok(reads > 0)
      assert.equal(migrated.has('users'), true)
      assert.equal(migrated.has('passkeys'), false)
      assert.equal(migrated.hasColumn('users', 'email'), true)
      assert.equal(migrated.hasColumn('users', 'password_reset_required_at'), false)
      assert.equal(migrated.hasColumn('user_tokens', 'details'), false, 'no table, no column')
      await migrated.ready()
      assert.equal(queries, reads, 'read once')

      await db.schema.createTable('passkeys', (t) => t.increments('id'))
      await db.schema.alterTable('users', (t) => t.dateTime('password_reset_required_at').nullable())
      assert.equal(migrated.has('passkeys'), false, 'the snapshot until read again')
      await migrated.load()
      assert.equal(migrated.has('passkeys'), true)
      assert.equal(migrated.hasColumn('users', 'password_reset_required_at'), true)
    } finally {
      await db.destroy()
    }
  })

  it('a read that failed is tried again on the next ready()', async () => {
    let fail = true
    const db = knex({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true })
    try {
      const migrated = new MigratedTables(() => {
        if (fail) throw new Error('the database is down')
        return db
      })
      await assert.rejects(migrated.ready(), /the database is down/)
      fail = false
      await migrated.ready()
      assert.equal(migrated.has('users'), false)
    } finally {
      await db.destroy()
    }
  })
})
