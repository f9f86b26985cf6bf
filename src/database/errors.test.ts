import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DatabaseUnavailableError, MigrationError, ModelNotFoundError, UniqueConstraintError, translateDatabaseError } from './errors.js'
import { HttpError } from '../http/http-error.js'
import { FrameworkError } from '../foundation/framework-error.js'

function driverError(fields: Record<string, unknown>, message = 'boom'): Error {
  return Object.assign(new Error(message), fields)
}

describe('translateDatabaseError', () => {
  it('maps unique violations of every driver to 409 E_CONFLICT with the column when known', () => {
    const cases: Array<[Error, string | undefined, string?]> = [
      [driverError({ code: 'SQLITE_CONSTRAINT_UNIQUE' }, 'insert into `users` … - UNIQUE constraint failed: users.email'), 'email'],
      [driverError({ code: '23505', detail: 'Key (email)=(a@b.c) already exists.', constraint: 'users_email_unique' }), 'email'],
      [driverError({ code: 'ER_DUP_ENTRY', errno: 1062 }, "Duplicate entry 'a@b.c' for key 'users_email_unique'"), 'email', 'users'],
      [driverError({ code: 'ER_DUP_ENTRY', errno: 1062 }, "Duplicate entry 'x' for key 'PRIMARY'"), undefined, 'users'],
      // The users migration's case-insensitive index on lower(email).
      [driverError({ code: 'SQLITE_CONSTRAINT_UNIQUE' }, "insert into `users` … - UNIQUE constraint failed: index 'users_email_lower_unique'"), 'email', 'users'],
      [driverError({ code: '23505', detail: 'Key (lower(email::text))=(a@b.c) already exists.', constraint: 'users_email_lower_unique' }), 'email', 'users'],
    ]
    for (const [raw, column, table] of cases) {
      const error = translateDatabaseError(raw, { table })
      assert.ok(error instanceof UniqueConstraintError)
      assert.ok(error instanceof HttpError)
      assert.equal(error.status, 409)
      assert.equal(error.code, 'E_CONFLICT')
      assert.equal(error.column, column)
      assert.equal(error.cause, raw)
      assert.doesNotMatch(error.message, /a@b\.c/)
    }
  })

  it('maps lost connections to 503 E_UNAVAILABLE with a log detail, and nothing else', () => {
    const lost = [
      driverError({ code: 'ECONNREFUSED' }, 'connect ECONNREFUSED 127.0.0.1:5432'),
      driverError({ code: 'ECONNRESET' }),
      driverError({ code: '57P01' }, 'terminating connection due to administrator command'),
      driverError({}, 'Connection terminated unexpectedly'),
      driverError({ name: 'KnexTimeoutError' }, 'Knex: Timeout acquiring a connection. The pool is probably full.'),
      driverError({ code: 'PROTOCOL_CONNECTION_LOST' }),
      new TypeError('The database connection is not open'),
      new AggregateError([driverError({ code: 'ECONNREFUSED' }, 'connect ECONNREFUSED ::1:5432')], ''),
    ]
    for (const raw of lost) {
      const error = translateDatabaseError(raw)
      assert.ok(error instanceof DatabaseUnavailableError, String(raw))
      assert.equal(error.status, 503)
      assert.equal(error.code, 'E_UNAVAILABLE')
      assert.match(error.detail, /^Lost the database connection: ./)
      assert.doesNotMatch(error.message, /ECONN|5432/)
    }
    for (const raw of [driverError({ code: 'SQLITE_BUSY' }), driverError({ code: '42P01' }), driverError({ code: 'SQLITE_CONSTRAINT_NOTNULL' }), 'text', null]) {
      assert.equal(translateDatabaseError(raw), raw)
    }
    const http = new ModelNotFoundError('User')
    assert.equal(translateDatabaseError(http), http)
  })

  it('has the catalogue codes and statuses', () => {
    assert.equal(new ModelNotFoundError('User').status, 404)
    assert.equal(new ModelNotFoundError('User').code, 'E_NOT_FOUND')
    assert.equal(new ModelNotFoundError('User').message, 'User not found.')
    assert.equal(new UniqueConstraintError('email').message, 'A record with this email already exists.')
    const migration = new MigrationError('2024_01_01_000000_x', 'nope')
    assert.ok(migration instanceof FrameworkError)
    assert.equal(migration.file, '2024_01_01_000000_x')
    assert.equal(migration.message, 'Migration "2024_01_01_000000_x" failed: nope')
  })
})
