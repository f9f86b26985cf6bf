/**
 * Per-app databases for black-box tests. On SQLite each app has its own file. On PostgreSQL and
 * MariaDB (DB_CONNECTION + DATABASE_URL set, as in CI) each app gets a fresh database on the same
 * server, dropped afterwards, so parallel test files never share tables.
 */
import { randomBytes } from 'node:crypto'
import type { Knex } from 'knex'

/** An admin connection to the server (knex is loaded only here: a SQLite run's files never need it). */
async function adminConnection(driver: 'postgres' | 'mysql', base: string): Promise<Knex> {
  const { default: knex } = await import('knex')
  return knex({ client: driver === 'postgres' ? 'pg' : 'mysql2', connection: base, pool: { min: 0, max: 1 } })
}

export type TestDriver = 'sqlite' | 'postgres' | 'mysql'

export function testDriver(): TestDriver {
  const c = (process.env.DB_CONNECTION ?? 'sqlite').toLowerCase()
  if (['postgres', 'pg', 'postgresql'].includes(c)) return 'postgres'
  if (['mysql', 'mariadb'].includes(c)) return 'mysql'
  return 'sqlite'
}

export interface TestDatabase {
  env: Record<string, string>
  drop(): Promise<void>
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const driver = testDriver()
  if (driver === 'sqlite') return { env: { DB_CONNECTION: 'sqlite', DB_DATABASE: 'storage/database.sqlite' }, drop: async () => {} }
  const base = process.env.DATABASE_URL ?? (driver === 'postgres' ? 'postgres://postgres@127.0.0.1:5432/test' : 'mysql://root@127.0.0.1:3306/test')
  const name = `trowel_t_${randomBytes(6).toString('hex')}`
  const admin = await adminConnection(driver, base)
  try {
    await admin.raw(driver === 'postgres' ? `create database "${name}"` : `create database \`${name}\``)
  } finally {
    await admin.destroy()
  }
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    env: { DB_CONNECTION: driver, DATABASE_URL: url.toString() },
    async drop() {
      const again = await adminConnection(driver, base)
      try {
        await again.raw(driver === 'postgres' ? `drop database if exists "${name}" with (force)` : `drop database if exists \`${name}\``)
      } catch {
        // best effort
      } finally {
        await again.destroy()
      }
    },
  }
}
