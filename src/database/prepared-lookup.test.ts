import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import knexFactory from 'knex'
import { SqliteClient } from './sqlite-client.js'
import { PreparedLookup, UNAVAILABLE } from './prepared-lookup.js'

describe('PreparedLookup.queryNow', () => {
  it('names every value by its own column, also after the tables change under a kept statement', async () => {
    const knex = knexFactory({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true })
    try {
      await knex.schema.createTable('users', (t) => {
        t.increments('id')
        t.string('name')
        t.string('email')
      })
      await knex.schema.createTable('tokens', (t) => {
        t.increments('id')
        t.integer('user_id')
        t.string('token_hash')
      })
      await knex('users').insert({ name: 'Ada', email: 'ada@example.test' })
      await knex('tokens').insert({ user_id: 1, token_hash: 'h1' })
      const prepared = new PreparedLookup(knex, 'sqlite')
      const sql = 'select t."id", u.* from "tokens" t join "users" u on u."id" = t."user_id" where t."token_hash" = ? limit 1'
      // Nothing runs synchronously before the connection's handle is kept (by a first look-up).
      assert.equal(prepared.queryNow('q', sql, 'h1'), UNAVAILABLE)
      await prepared.findBy('users', 'id', 1)
      const read = async () => {
        const values = prepared.queryNow('q', sql, 'h1') as unknown[]
        const columns = prepared.columnsOf('q')!
        assert.equal(columns.length, values.length)
        const user = Object.fromEntries(columns.slice(1).map((c, i) => [c, values[i + 1]]))
        assert.deepEqual(user, await knex('users').where('id', 1).first())
        return user
      }
      assert.deepEqual(Object.keys(await read()), ['id', 'name', 'email'])
      await knex.schema.alterTable('users', (t) => t.string('secret').defaultTo('s3cret'))
      assert.deepEqual(Object.keys(await read()), ['id', 'name', 'email', 'secret'])
      // Dropping a column rebuilds the table on SQLite: every later column moves one place left.
      await knex.schema.alterTable('users', (t) => t.dropColumn('name'))
      assert.deepEqual(await read(), { id: 1, email: 'ada@example.test', secret: 's3cret' })
      await knex.schema.alterTable('users', (t) => t.renameColumn('email', 'address'))
      assert.deepEqual(await read(), { id: 1, address: 'ada@example.test', secret: 's3cret' })
      assert.equal(prepared.queryNow('q', sql, 'no such token'), undefined)
    } finally {
      await knex.destroy()
    }
  })
})
