import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import knexFactory from 'knex'
import { SqliteClient, loadSqliteDriver, sqliteDriverPackage } from './sqlite-client.js'

const require = createRequire(import.meta.url)

describe('SqliteClient', () => {
  it('picks better-sqlite3 12 on Node 20 and the Node-API build (13) from Node 22 on', () => {
    assert.equal(sqliteDriverPackage('20.19.0'), 'better-sqlite3')
    assert.equal(sqliteDriverPackage('20.20.2'), 'better-sqlite3')
    assert.equal(sqliteDriverPackage('22.0.0'), 'better-sqlite3-napi')
    assert.equal(sqliteDriverPackage('24.21.0'), 'better-sqlite3-napi')
    assert.equal(loadSqliteDriver(), require(sqliteDriverPackage()))
    const major = Number(require(`${sqliteDriverPackage()}/package.json`).version.split('.')[0])
    assert.equal(major, Number(process.versions.node.split('.')[0]) >= 22 ? 13 : 12)
  })

  it('is a working knex client whose driver name is better-sqlite3', async () => {
    const knex = knexFactory({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true })
    try {
      assert.equal((knex.client as { driverName: string }).driverName, 'better-sqlite3')
      await knex.schema.createTable('t', (t) => t.increments('id'))
      await knex('t').insert({})
      assert.deepEqual(await knex('t').select('id'), [{ id: 1 }])
    } finally {
      await knex.destroy()
    }
  })
})
