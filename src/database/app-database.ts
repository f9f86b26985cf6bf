/**
 * @module database/app-database
 * The database of a given app: its `db.manager` (bound by the database provider) and a
 * connection of it. The framework's own services and handlers reach the database through these,
 * with the app they serve at hand, never through the process-wide `db()`.
 */
import type { Knex } from 'knex'
import type { Application } from '../foundation/application.js'
import type { DatabaseManager } from './database-manager.js'

/** The app's database manager. */
export function databaseOf(app: Application): DatabaseManager {
  return app.make('db.manager')
}

/** A connection of the app's database (its default connection when `name` is omitted). */
export function connectionOf(app: Application, name?: string): Knex {
  return databaseOf(app).connection(name)
}
