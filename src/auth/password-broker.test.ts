import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import knexFactory, { type Knex } from 'knex'
import { SqliteClient } from '../database/sqlite-client.js'
import { PasswordBroker } from './password-broker.js'
import { Budget } from './throttle/budget.js'
import { MemoryThrottleStore } from './throttle/index.js'
import type { ThrottleStore } from './throttle/throttle-store.js'
import { sha256Hex } from './tokens/index.js'

/** The password_resets table of a new app. */
function createResetsTable(db: Knex): Promise<void> {
  return db.schema.createTable('password_resets', (t) => {
    t.string('email')
    t.string('token', 64)
    t.dateTime('expires_at').nullable()
    t.dateTime('created_at')
  })
}

/** A broker on `db` whose links expire in an hour and whose mails are recorded by `record`. */
function testBroker(db: Knex, model: ConstructorParameters<typeof PasswordBroker>[0]['model'], record: (user: { email: string }) => void): PasswordBroker {
  return new PasswordBroker({
    db: () => db,
    model,
    table: 'password_resets',
    expiration: 60,
    appUrl: 'http://app.test',
    hash: async (p) => p,
    revokeAllLogins: async () => {},
    send: async (user) => void record(user),
    onSendError: () => {},
  })
}

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
    await createResetsTable(db)
    db.on('query', (q: { sql: string }) => statements.push(q.sql.split(' ')[0]!.toLowerCase()))
    broker = testBroker(db, model, (user) => sent.push(user.email))
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

describe('PasswordBroker: one e-mail per address per window, and isUsable', () => {
  let db: Knex
  let sent: string[]
  const users = new Map([
    ['ada@example.test', { email: 'ada@example.test', getKey: () => 1 }],
    ['bob@example.test', { email: 'Bob@Example.test', getKey: () => 2 }],
  ])
  const model = {
    authColumn: 'email',
    async findForAuth(value: unknown) {
      return typeof value === 'string' ? users.get(value.trim().toLowerCase()) ?? null : null
    },
  }
  let broker: PasswordBroker
  const rows = async () => (await db('password_resets').select('email', 'token').orderBy('email')) as { email: string; token: string }[]

  before(async () => {
    db = knexFactory({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true, pool: { min: 1, max: 1 } })
    await createResetsTable(db)
    broker = testBroker(db, model, (user) => sent.push(user.email))
  })
  after(() => db.destroy())

  it('a second request for the address within the window sends nothing and keeps the first token', async () => {
    sent = []
    const mailBudget = new Budget('reset_mail', new MemoryThrottleStore(), { attempts: 1, minutes: 1 })
    const first = await broker.request('ada@example.test', { mailBudget })
    assert.equal(typeof first?.token, 'string')
    const stored = await rows()
    for (const spelling of ['ada@example.test', '  ADA@Example.TEST ']) {
      const again = await broker.request(spelling, { mailBudget })
      assert.equal(again?.user.getKey(), 1)
      assert.equal(again?.token, null, `${JSON.stringify(spelling)} got a second token`)
    }
    assert.deepEqual(await rows(), stored, 'the held-back request changed the stored token')
    assert.equal((await rows())[0]!.token, sha256Hex(first!.token!))
    assert.deepEqual(sent, ['ada@example.test'])
    // Another address has its own slot; an unknown address takes none.
    assert.equal(typeof (await broker.request('bob@example.test', { mailBudget }))?.token, 'string')
    assert.equal(await broker.request('nobody@example.test', { mailBudget }), null)
    assert.deepEqual(sent, ['ada@example.test', 'Bob@Example.test'])
    // Without the budget (a direct caller), every request issues a new token (control).
    assert.equal(typeof (await broker.request('ada@example.test'))?.token, 'string')
  })

  it('30 concurrent requests for one address: exactly one token written, one e-mail', async () => {
    sent = []
    await db('password_resets').delete()
    const mailBudget = new Budget('reset_mail', new MemoryThrottleStore(), { attempts: 1, minutes: 1 })
    const results = await Promise.all(Array.from({ length: 30 }, () => broker.request('ada@example.test', { mailBudget })))
    assert.equal(results.filter((r) => r?.token).length, 1)
    assert.equal((await rows()).length, 1)
    await new Promise((r) => setImmediate(r))
    assert.deepEqual(sent, ['ada@example.test'])
  })

  it('a failed token write gives the slot back; an unreachable store sends nothing (fails closed)', async () => {
    sent = []
    const store = new MemoryThrottleStore()
    const mailBudget = new Budget('reset_mail', store, { attempts: 1, minutes: 1 })
    const broken = new PasswordBroker({
      db: () => db, model, table: 'no_such_table', expiration: 60, appUrl: 'http://app.test',
      hash: async (p) => p, revokeAllLogins: async () => {}, send: async (user) => void sent.push(user.email), onSendError: () => {},
    })
    await assert.rejects(broken.request('ada@example.test', { mailBudget }))
    assert.equal(typeof (await broker.request('ada@example.test', { mailBudget }))?.token, 'string', 'the slot was not given back')
    const down: ThrottleStore = { hit: async () => { throw new Error('down') }, get: async () => null, clear: async () => {} }
    await assert.rejects(broker.request('bob@example.test', { mailBudget: new Budget('reset_mail', down, { attempts: 1, minutes: 1 }) }), { status: 503 })
    assert.deepEqual(sent, ['ada@example.test'])
  })

  it('isUsable: true for a live token, false for unknown, malformed, expired and used ones; it consumes nothing', async () => {
    await db('password_resets').delete()
    const live = (await broker.request('ada@example.test'))!.token!
    assert.equal(await broker.isUsable(live), true)
    assert.equal(await broker.isUsable(live), true, 'asking twice still answers true')
    assert.equal((await rows()).length, 1)
    for (const dead of [live.slice(0, 42), live + 'A', '', 'x'.repeat(500), 42, null, undefined, ['x']]) assert.equal(await broker.isUsable(dead), false)
    const expired = (await broker.request('bob@example.test'))!.token!
    await db('password_resets').where('token', sha256Hex(expired)).update({ expires_at: new Date(Date.now() - 1000) })
    assert.equal(await broker.isUsable(expired), false)
    assert.equal((await rows()).length, 2, 'isUsable deleted the expired row')
    await db('password_resets').where('token', sha256Hex(live)).delete() // what reset() does
    assert.equal(await broker.isUsable(live), false, 'a used token')
  })
})
