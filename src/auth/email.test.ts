/**
 * One e-mail normalisation, used for storing (Registrar), looking up (findForAuth, `unique` /
 * `exists`) and keying budgets; and look-ups that stay correct for rows stored before it
 * (capitals, decomposed accents), on the database of DB_CONNECTION.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import knexFactory from 'knex'
import { normalizeEmail } from './email.js'
import { Authenticates } from './authenticates.js'
import { Registrar } from './registrar.js'
import { Model } from '../database/model.js'
import { createTestDatabase, type TestDatabase } from '../database/testing.js'
import { whereEmail } from '../database/where-caseless.js'
import { validate } from '../validation/index.js'
import { ValidationError } from '../http/errors.js'
import { FakeHasher } from '../testing/fake-hasher.js'
import type { AuthModel } from './user-providers/model-user-provider.js'

const NFC_JOSE = 'jos\u00e9@example.test'
const NFD_JOSE = 'jose\u0301@example.test'

describe('normalizeEmail', () => {
  it('trims, composes (NFC) and lower-cases', () => {
    assert.equal(normalizeEmail('  Ada@Example.COM \t\n'), 'ada@example.com')
    assert.equal(normalizeEmail(NFD_JOSE), NFC_JOSE)
    assert.equal(normalizeEmail('JOSE\u0301@EXAMPLE.TEST'), NFC_JOSE)
    assert.equal(normalizeEmail('\u00c5SA@example.test'), '\u00e5sa@example.test')
    assert.equal(normalizeEmail('\u00a0bob@example.test\u2003'), 'bob@example.test', 'Unicode spaces are trimmed too')
  })

  it('gives every spelling of one address the same value, and is idempotent', () => {
    const spellings = ['ALICE@x.test', ' alice@x.test ', 'Alice@X.Test', '\talice@X.TEST\n']
    assert.deepEqual(new Set(spellings.map(normalizeEmail)), new Set(['alice@x.test']))
    for (const value of [...spellings, NFD_JOSE, 'JOSE\u0301@X', '\u0130stanbul@x.test', 'STRASSE@x.test', '\u1e9e@x.test', 'K\u212a@x.test']) {
      const once = normalizeEmail(value)
      assert.equal(normalizeEmail(once), once, JSON.stringify(value))
    }
  })

  it('gives a non-string the empty string', () => {
    for (const value of [undefined, null, 42, ['a@b'], { a: 1 }]) assert.equal(normalizeEmail(value), '')
  })
})

describe('whereEmail: the SQL (no connection needed)', () => {
  const sqlOf = (client: string, value: string) => {
    const knex = knexFactory({ client, useNullAsDefault: true })
    const sql = whereEmail(knex('users').select('id'), 'email', value).toSQL().toNative()
    void knex.destroy()
    return sql
  }

  it('an already normalised value: one lower() comparison, as before', () => {
    assert.deepEqual(sqlOf('pg', 'ann@example.com'), { sql: 'select "id" from "users" where lower("email") = lower($1)', bindings: ['ann@example.com'] })
  })

  it('another spelling: the normalised value and the value as typed, normalised row first; MySQL adds the indexable email IN', () => {
    assert.deepEqual(sqlOf('pg', ' Ann@Example.com '), {
      sql: 'select "id" from "users" where lower("email") in (lower($1), lower($2)) order by case when lower("email") = lower($3) then 0 else 1 end',
      bindings: ['ann@example.com', 'Ann@Example.com', 'ann@example.com'],
    })
    assert.match(sqlOf('mysql2', 'Ann@Example.com').sql, /^select `id` from `users` where `email` in \(\?, \?\) and lower\(`email`\) in \(lower\(\?\), lower\(\?\)\)/)
  })
})

describe(`accounts by e-mail on ${process.env.DB_CONNECTION ?? 'sqlite'}: stored normalised, found by any spelling, legacy rows kept`, () => {
  let tdb: TestDatabase
  class User extends Authenticates(Model) {
    static table = 'placeholder'
    static fillable = ['name', 'email', 'password']
    declare id: number
    declare email: string
  }
  const users = () => User.getTable()

  before(async () => {
    tdb = await createTestDatabase()
    User.table = tdb.table('users')
    await tdb.knex.schema.createTable(users(), (table) => {
      table.increments('id')
      table.string('name').notNullable()
      table.string('email').notNullable().unique()
      table.string('password').notNullable()
      table.timestamps()
    })
    // As the users migration: unique without case (MySQL's collation already is).
    if (tdb.driver !== 'mysql') await tdb.knex.raw('CREATE UNIQUE INDEX ?? ON ?? (lower(??))', [`${users()}_email_lower`, users(), 'email'])
    // Rows written before addresses were normalised.
    await tdb.knex(users()).insert([
      { name: 'Legacy', email: 'Legacy.Person@Example.test', password: 'x' },
      { name: 'Asa', email: '\u00c5SA@example.test', password: 'x' },
      { name: 'Jose', email: NFD_JOSE, password: 'x' },
    ])
  })
  after(() => tdb.cleanup())

  async function idOf(email: string): Promise<number | null> {
    const found = (await User.findForAuth(email)) as User | null
    return found ? Number(found.id) : null
  }
  async function rowId(email: string): Promise<number> {
    return Number((await tdb.knex(users()).where('email', email).first('id')).id)
  }

  it('Registrar stores the normalised address; every spelling finds it', async () => {
    const registrar = new Registrar(User as unknown as AuthModel, new FakeHasher())
    const created = await registrar.create<User>({ name: 'Ren', email: '  Ren\u00c9e@Example.TEST ', password: 'a long password' })
    const stored = (await tdb.knex(users()).where('id', created.id).first('email')).email
    assert.equal(stored, 'ren\u00e9e@example.test')
    for (const spelling of ['ren\u00e9e@example.test', 'RENE\u0301E@EXAMPLE.TEST', ' Ren\u00c9e@example.test ', 'rene\u0301e@example.test']) {
      assert.equal(await idOf(spelling), Number(created.id), JSON.stringify(spelling))
    }
    await assert.rejects(registrar.create({ name: 'Again', email: 'RENE\u0301E@example.test', password: 'a long password' }), /unique|taken|email/i)
  })

  it('a legacy row with ASCII capitals is found by its spelling and by the normalised one', async () => {
    const id = await rowId('Legacy.Person@Example.test')
    for (const spelling of ['Legacy.Person@Example.test', 'legacy.person@example.test', ' LEGACY.PERSON@EXAMPLE.TEST ']) {
      assert.equal(await idOf(spelling), id, spelling)
    }
  })

  it('a legacy row with non-ASCII capitals is found as typed (SQLite lower() folds ASCII only)', async () => {
    const id = await rowId('\u00c5SA@example.test')
    assert.equal(await idOf('\u00c5SA@example.test'), id)
    assert.equal(await idOf('\u00c5sa@Example.test'), id)
  })

  it('a legacy row stored decomposed (NFD) is found as typed, and by the composed spelling where the database folds it', async () => {
    const id = await rowId(NFD_JOSE)
    assert.equal(await idOf(NFD_JOSE), id)
    assert.equal(await idOf('JOSE\u0301@example.test'), id)
  })

  it('look-alikes and other addresses match nothing', async () => {
    for (const other of ['nobody@example.test', 'legacy.person@example.test.', 'legacy.person@exampl\u0435.test', '', '   ']) {
      assert.equal(await idOf(other), null, JSON.stringify(other))
    }
  })

  it('validation unique / exists agree with the look-up', async () => {
    // `string`, not `email`: the `email` format rule refuses non-ASCII local parts before the query.
    const rules = (rule: string) => ({ email: `required|string|${rule}:${users()},email` })
    for (const taken of ['LEGACY.PERSON@example.test', 'ren\u00e9e@EXAMPLE.test', 'RENE\u0301E@example.test', ' Legacy.Person@Example.test ']) {
      await assert.rejects(validate({ email: taken }, rules('unique'), { db: tdb.knex }), ValidationError, taken)
      await validate({ email: taken }, rules('exists'), { db: tdb.knex })
    }
    const withFormat = { email: `required|email|unique:${users()},email` }
    await assert.rejects(validate({ email: ' LEGACY.PERSON@Example.test ' }, withFormat, { db: tdb.knex }), ValidationError)
    await validate({ email: 'free@example.test' }, rules('unique'), { db: tdb.knex })
    await assert.rejects(validate({ email: 'free@example.test' }, rules('exists'), { db: tdb.knex }), ValidationError)
  })

  it('when a typed spelling reaches two legacy rows (SQLite lets both in), the normalised one wins', async (t) => {
    try {
      await tdb.knex(users()).insert([
        { name: 'Zoe lower', email: '\u017eoe@example.test', password: 'x' },
        { name: 'Zoe upper', email: '\u017dOE@example.test', password: 'x' },
      ])
    } catch {
      return t.skip(`${tdb.driver}'s lower() folds non-ASCII letters: the two rows cannot both exist`)
    }
    assert.equal(await idOf('\u017dOE@example.test'), await rowId('\u017eoe@example.test'))
  })
})
