import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import knexFactory, { type Knex } from 'knex'
import { SqliteClient } from '../database/sqlite-client.js'
import * as v from 'valibot'
import { validate, ValidationError } from './index.js'
import { DatabaseManager, setDatabase } from '../database/database-manager.js'

/** The errors `validate` throws, or null when it passes. */
async function errorsOf(data: Record<string, unknown>, rules: Record<string, any>, options = {}): Promise<Record<string, string[]> | null> {
  try {
    await validate(data, rules, options)
    return null
  } catch (error) {
    assert.ok(error instanceof ValidationError, `expected ValidationError, got ${String(error)}`)
    assert.equal(error.status, 422)
    assert.equal(error.code, 'E_VALIDATION')
    return error.errors
  }
}

describe('validate', () => {
  it('returns only the validated keys', async () => {
    const out = await validate({ name: 'Ann', email: '  ann@example.com ', admin: true, extra: 'x' }, { name: 'required|string', email: 'required|email' })
    assert.deepEqual(out, { name: 'Ann', email: 'ann@example.com' })
  })

  it('required: absent, null, empty, whitespace and [] fail; other rules are skipped', async () => {
    for (const value of [undefined, null, '', '   ', []]) {
      const data = value === undefined ? {} : { name: value }
      assert.deepEqual(await errorsOf(data, { name: 'required|min:3' }), { name: ['The name field is required.'] })
    }
    assert.equal(await errorsOf({ name: 'Ann' }, { name: 'required' }), null)
  })

  it('the back option travels on the error (where a failed web form without a Referer goes)', async () => {
    const back = (options = {}) => validate({}, { name: 'required' }, options).then(() => 'passed', (e: ValidationError) => e.back)
    assert.equal(await back({ back: '/contact' }), '/contact')
    assert.equal(await back(), undefined)
  })

  it('optional empty fields pass; nullable returns null', async () => {
    assert.deepEqual(await validate({}, { bio: 'string|max:5' }), {})
    assert.deepEqual(await validate({ bio: '' }, { bio: 'nullable|string|max:5' }), { bio: null })
  })

  it('string', async () => {
    assert.equal(await errorsOf({ s: 'x' }, { s: 'string' }), null)
    assert.deepEqual(await errorsOf({ s: 5 }, { s: 'string' }), { s: ['The s field must be a string.'] })
  })

  it('email: valid addresses pass (trimmed), invalid and over 254 characters fail', async () => {
    for (const good of ['a@example.com', 'first.last+tag@sub.example.org']) {
      assert.equal(await errorsOf({ email: good }, { email: 'email' }), null, good)
    }
    const msg = { email: ['The email field must be a valid email address.'] }
    for (const bad of ['nope', 'a@', '@b.com', 'a b@c.com', 'a@b', 'a@b.com\r\nBcc: x@y.com', 'x'.repeat(250) + '@b.com']) {
      assert.deepEqual(await errorsOf({ email: bad }, { email: 'email' }), msg, bad)
    }
  })

  it('numeric / number / integer (returned as numbers)', async () => {
    assert.deepEqual(await validate({ n: '3.5', m: 2, i: '-7' }, { n: 'numeric', m: 'number', i: 'integer' }), { n: 3.5, m: 2, i: -7 })
    assert.deepEqual(await errorsOf({ n: 'abc' }, { n: 'numeric' }), { n: ['The n field must be a number.'] })
    assert.deepEqual(await errorsOf({ i: '1.5' }, { i: 'integer' }), { i: ['The i field must be an integer.'] })
    assert.deepEqual(await errorsOf({ i: '0x10' }, { i: 'integer' }), { i: ['The i field must be an integer.'] })
    assert.deepEqual(await errorsOf({ n: 'Infinity' }, { n: 'numeric' }), { n: ['The n field must be a number.'] })
  })

  it('boolean (returned as booleans)', async () => {
    assert.deepEqual(await validate({ a: '1', b: 'false', c: true, d: 'on' }, { a: 'boolean', b: 'boolean', c: 'boolean', d: 'boolean' }), { a: true, b: false, c: true, d: true })
    assert.deepEqual(await errorsOf({ a: 'maybe' }, { a: 'boolean' }), { a: ['The a field must be true or false.'] })
  })

  it('min / max on string length, number value and array size', async () => {
    assert.equal(await errorsOf({ p: '12345678' }, { p: 'min:8|max:8' }), null)
    assert.deepEqual(await errorsOf({ p: '1234567' }, { p: 'min:8' }), { p: ['The p field must be at least 8 characters.'] })
    assert.deepEqual(await errorsOf({ p: '123456789' }, { p: 'max:8' }), { p: ['The p field must not be greater than 8 characters.'] })
    assert.equal(await errorsOf({ p: 'éééééééé' }, { p: 'min:8|max:8' }), null, 'counts characters, not bytes')
    assert.deepEqual(await errorsOf({ age: '17' }, { age: 'integer|min:18' }), { age: ['The age field must be at least 18.'] })
    assert.deepEqual(await errorsOf({ age: 200 }, { age: 'numeric|max:150' }), { age: ['The age field must not be greater than 150.'] })
    assert.deepEqual(await errorsOf({ tags: ['a'] }, { tags: 'array|min:2' }), { tags: ['The tags field must have at least 2 items.'] })
    assert.deepEqual(await errorsOf({ tags: ['a', 'b', 'c'] }, { tags: 'array|max:2' }), { tags: ['The tags field must not have more than 2 items.'] })
  })

  it('confirmed', async () => {
    assert.equal(await errorsOf({ password: 'abcdefgh', password_confirmation: 'abcdefgh' }, { password: 'confirmed' }), null)
    const msg = { password: ['The password field confirmation does not match.'] }
    assert.deepEqual(await errorsOf({ password: 'abcdefgh', password_confirmation: 'abcdefgH' }, { password: 'confirmed' }), msg)
    assert.deepEqual(await errorsOf({ password: 'abcdefgh' }, { password: 'confirmed' }), msg)
    assert.deepEqual(await errorsOf({ password: 'abcdefgh', password_confirmation: ['abcdefgh'] }, { password: 'confirmed' }), msg)
  })

  it('same', async () => {
    assert.equal(await errorsOf({ a: 'x', b: 'x' }, { b: 'same:a' }), null)
    assert.deepEqual(await errorsOf({ a: 'x', b: 'y' }, { b: 'same:a' }), { b: ['The b field must match a.'] })
  })

  it('in', async () => {
    assert.equal(await errorsOf({ role: 'admin' }, { role: 'in:admin,editor' }), null)
    assert.deepEqual(await errorsOf({ role: 'root' }, { role: 'in:admin,editor' }), { role: ['The selected role is invalid.'] })
  })

  it('type confusion: arrays, objects and numbers give messages, never exceptions', async () => {
    const rules = { email: 'required|email', password: 'required|min:8|confirmed', name: 'required|max:255', role: 'in:a,b' }
    const hostile = [
      { email: ['a@b.co'], password: ['12345678', '12345678'], name: { toString: 1 }, role: ['a'] },
      { email: { $ne: null }, password: { length: 100 }, name: 12, role: { a: 1 } },
      { email: 12345, password: 123456789, name: true, role: 1 },
    ]
    for (const data of hostile) {
      const errors = await errorsOf(data, rules)
      assert.ok(errors, JSON.stringify(data))
      assert.deepEqual(Object.keys(errors).sort(), ['email', 'name', 'password', 'role'])
      for (const messages of Object.values(errors)) assert.equal(typeof messages[0], 'string')
    }
    assert.deepEqual(await errorsOf({ email: 5 }, { email: 'email' }), { email: ['The email field must be a string.'] })
    assert.deepEqual(await errorsOf({ __proto__: { email: 'x@y.com' } } as any, { email: 'required' }), { email: ['The email field is required.'] })
  })

  it('non-object data is treated as empty', async () => {
    assert.deepEqual(await errorsOf(['a'] as any, { a: 'required' }), { a: ['The a field is required.'] })
  })

  it('reports every failing field, one message each', async () => {
    const errors = await errorsOf({ email: 'bad', password: 'short' }, { name: 'required', email: 'required|email', password: 'required|min:8' })
    assert.deepEqual(errors, {
      name: ['The name field is required.'],
      email: ['The email field must be a valid email address.'],
      password: ['The password field must be at least 8 characters.'],
    })
  })

  it('custom messages and attribute names', async () => {
    const errors = await errorsOf({}, { email: 'required', name: 'required' }, { messages: { 'email.required': 'We need your :attribute.', required: 'Missing :attribute!' }, attributes: { email: 'e-mail' } })
    assert.deepEqual(errors, { email: ['We need your e-mail.'], name: ['Missing name!'] })
  })

  it('custom rule functions and valibot schemas', async () => {
    const notCommon = (value: unknown) => (value === 'password' ? 'The password is too common.' : undefined)
    assert.deepEqual(await errorsOf({ password: 'password' }, { password: ['required', 'min:8', notCommon] }), { password: ['The password is too common.'] })
    const out = await validate({ code: 'abc' }, { code: ['required', v.pipe(v.string(), v.toUpperCase())] })
    assert.deepEqual(out, { code: 'ABC' })
    const errors = await errorsOf({ code: 'abc' }, { code: [v.pipe(v.string(), v.length(5, 'Exactly five.'))] })
    assert.deepEqual(errors, { code: ['Exactly five.'] })
  })

  it('unknown rules and missing arguments are programming errors', async () => {
    await assert.rejects(validate({ a: 'x' }, { a: 'required|frobnicate' }), /unknown rule "frobnicate"/)
    await assert.rejects(validate({ a: 'x' }, { a: 'min' }), /needs an argument/)
    await assert.rejects(validate({ a: 'x' }, { a: 'unique:users' }), /needs a database/)
  })

  describe('database rules (SQLite in memory)', () => {
    let db: Knex
    before(async () => {
      db = knexFactory({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true })
      await db.schema.createTable('users', (t) => {
        t.increments('id')
        t.string('email').unique()
      })
      await db('users').insert([{ email: 'Taken@Example.com' }, { email: 'other@example.com' }])
    })
    after(() => db.destroy())

    it('unique passes for a new value and fails case-insensitively for a taken one', async () => {
      assert.deepEqual(await validate({ email: 'new@example.com' }, { email: 'required|email|unique:users,email' }, { db }), { email: 'new@example.com' })
      for (const email of ['taken@example.com', ' TAKEN@EXAMPLE.COM ']) {
        assert.deepEqual(await errorsOf({ email }, { email: 'required|email|unique:users,email' }, { db }), { email: ['The email has already been taken.'] })
      }
    })

    it("without { db } the app's default connection is used", async () => {
      const manager = new DatabaseManager({ default: 'memory', memory: { driver: 'sqlite', database: ':memory:' } })
      const knex = manager.connection()
      await knex.schema.createTable('users', (t) => {
        t.increments('id')
        t.string('email')
      })
      await knex('users').insert({ email: 'taken@example.com' })
      setDatabase(manager)
      try {
        assert.deepEqual(await errorsOf({ email: 'TAKEN@example.com' }, { email: 'unique:users' }), { email: ['The email has already been taken.'] })
        assert.equal(await errorsOf({ email: 'free@example.com' }, { email: 'unique:users' }), null)
      } finally {
        setDatabase(undefined)
        await manager.close()
      }
    })

    it('unique defaults the column to the field name and can ignore one row', async () => {
      assert.ok(await errorsOf({ email: 'taken@example.com' }, { email: 'unique:users' }, { db }))
      assert.equal(await errorsOf({ email: 'taken@example.com' }, { email: 'unique:users,email,1,id' }, { db }), null)
    })

    it('unique is not run when earlier rules fail, and never sees non-strings', async () => {
      assert.deepEqual(await errorsOf({ email: 'taken' }, { email: 'email|unique:users' }, { db }), { email: ['The email field must be a valid email address.'] })
      assert.deepEqual(await errorsOf({ email: ['taken@example.com'] }, { email: 'unique:users' }, { db }), { email: ['The email field must be a string.'] })
    })

    it('unique treats SQL metacharacters as data', async () => {
      assert.equal(await errorsOf({ email: "x' OR '1'='1@example.com" }, { email: 'unique:users' }, { db }), null)
      assert.equal(await errorsOf({ email: '%' }, { email: 'unique:users' }, { db }), null)
    })

    it('exists', async () => {
      assert.equal(await errorsOf({ email: 'other@example.com' }, { email: 'exists:users,email' }, { db }), null)
      assert.deepEqual(await errorsOf({ email: 'ghost@example.com' }, { email: 'exists:users,email' }, { db }), { email: ['The selected email is invalid.'] })
    })
  })
})
