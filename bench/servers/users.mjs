// The user store every non-Trowel server of the benchmarks reads: a SQLite file with the same
// rows as the Trowel app's `users` table (made by bench/lib/users-db.mjs), queried through
// better-sqlite3 statements prepared once, the fastest access a Node server has to it.
// `toJson` answers exactly what Trowel's model serializes: hidden fields out, dates as ISO strings.
import Database from 'better-sqlite3'

export function openUsers(path) {
  const db = new Database(path)
  const byId = db.prepare('SELECT * FROM users WHERE id = ?')
  const byEmail = db.prepare('SELECT * FROM users WHERE email = ?')
  const setToken = db.prepare('UPDATE users SET api_token = ? WHERE id = ?')
  return {
    byId: (id) => byId.get(id),
    byEmail: (email) => byEmail.get(email),
    setToken: (id, digest) => setToken.run(digest, id),
    toJson: (row) => ({
      id: row.id,
      name: row.name,
      email: row.email,
      created_at: new Date(row.created_at).toISOString(),
      updated_at: new Date(row.updated_at).toISOString(),
      // Apps with the account tables (craft auth) have it; Trowel serializes it after updated_at.
      ...('email_verified_at' in row ? { email_verified_at: row.email_verified_at == null ? null : new Date(row.email_verified_at).toISOString() } : {}),
    }),
  }
}
