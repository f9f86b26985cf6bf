import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import knexFactory, { type Knex } from 'knex'
import { SqliteClient } from '../database/sqlite-client.js'
import { PasswordBroker } from './password-broker.js'

describe('PasswordBroker.sendResetLink', () => {
  let db: Knex
  let statements: string[]
  const sent: string[] = []
  const users = new Map([['ada@example.test', { email: 'ada@example.test', getKey: () => 1 }]])
  const model = {
    authColumn: 'email',
    async findForAuth(value: unknown) {
      return typeof value === 'string' ? users.get(value.trim().toLowerCase()) ?? null : null
    },
  }
  let broker: PasswordBroker

  before(async () => {
    db = knexFactory({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true, pool: { min: 1, max: 1 } })
    await db.schema.createTable('password_resets', (t) => {
      t.string('email')
      t.string('token', 64)
      t.dateTime('expires_at').nullable()
      t.dateTime('created_at')
    })
    db.on('query', (q: { sql: string }) => statements.push(q.sql.split(' ')[0]!.toLowerCase()))
    broker = new PasswordBroker({
      db: () => db,
      model,
      table: 'password_resets',
      expiration: 60,
      appUrl: 'http://app.test',
      hash: async (p) => p,
      revokeAllLogins: async () => {},
      send: async (user) => void sent.push(user.email),
      onSendError: () => {},
    })
  })
  after(() => db.destroy())

  it('runs the same transaction for an unknown address (its delete matches nothing), so timing tells nothing', async () => {
    statements = []
    assert.equal(typeof (await broker.sendResetLink('ada@example.test')), 'string')
    const known = statements
    statements = []
    assert.equal(await broker.sendResetLink('nobody@example.test'), null)
    const unknown = statements
    assert.deepEqual(unknown, known.filter((s) => s !== 'insert'), `known ${known.join(',')} / unknown ${unknown.join(',')}`)
    assert.ok(unknown.includes('delete'))
    for (const odd of [' Nobody@Example.test ', 'a\u0000b@example.test', 42, null, ['x']]) assert.equal(await broker.sendResetLink(odd), null)
    assert.equal((await db('password_resets').count({ n: '*' }))[0]!.n, 1)
    assert.deepEqual(sent, ['ada@example.test'])
  })
})
