// Copies the Trowel app's users into a SQLite file for the non-Trowel servers, optionally with
// another password hash (the bcrypt peers get a bcrypt cost-12 hash of the same password).
import Database from 'better-sqlite3'
import { rmSync } from 'node:fs'

export function copyUsers(fromPath, toPath, { passwordHash } = {}) {
  rmSync(toPath, { force: true })
  const from = new Database(fromPath, { readonly: true })
  // email_verified_at when the app has it (the account tables of craft auth), so the JSON matches.
  const verified = from.prepare('SELECT name FROM pragma_table_info(?)').all('users').some((c) => c.name === 'email_verified_at')
  const rows = from.prepare(`SELECT id, name, email, password, created_at, updated_at, api_token${verified ? ', email_verified_at' : ''} FROM users`).all()
  from.close()
  const to = new Database(toPath)
  to.exec(`CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, password TEXT NOT NULL,
    created_at INTEGER, updated_at INTEGER, api_token TEXT${verified ? ', email_verified_at INTEGER' : ''})`)
  const insert = to.prepare(`INSERT INTO users VALUES (@id, @name, @email, @password, @created_at, @updated_at, @api_token${verified ? ', @email_verified_at' : ''})`)
  for (const row of rows) insert.run({ ...row, password: passwordHash ?? row.password })
  to.close()
  return rows.length
}
