/**
 * @module api/guards/jwt/user-provider
 * The JWT guard's user provider over an `AuthenticatesTokens` model: the current token's digest
 * lives in the model's `tokenColumn` (default `api_token`). The per-request read is one
 * primary-key look-up through a statement prepared once per connection; the model instance is
 * built only when someone asks for the user.
 */
import type { Knex } from 'knex'
import type { PreparedLookup } from '../../../database/prepared-lookup.js'
import { ModelUserProvider, type AuthModel, type ModelUser } from '../../../auth/user-providers/model-user-provider.js'
import type { JwtUserProvider, TokenRecord } from './types.js'

export class ModelJwtUserProvider<User extends ModelUser = ModelUser> extends ModelUserProvider<User> implements JwtUserProvider<User> {
  readonly column: string
  readonly #primaryKey: string

  constructor(model: AuthModel & { tokenColumn?: string; connection?: string }) {
    super(model)
    this.column = model.tokenColumn ?? 'api_token'
    this.#primaryKey = model.getPrimaryKey()
  }

  #rowSource: Readonly<{ table: string; primaryKey: string; connection: string | undefined }> | undefined

  /** Where the users' rows are (the same object on every request while the model's table and connection stay). */
  get rowSource(): Readonly<{ table: string; primaryKey: string; connection: string | undefined }> {
    const model = this.model as AuthModel & { connection?: string }
    const table = model.getTable()
    const cached = this.#rowSource
    if (cached?.table === table && cached.connection === model.connection) return cached
    return (this.#rowSource = Object.freeze({ table, primaryKey: this.#primaryKey, connection: model.connection }))
  }

  recordFromRow(row: Record<string, unknown>): TokenRecord<User> {
    return this.#record(row)!
  }

  async findRecord(id: string): Promise<TokenRecord<User> | null> {
    return this.findRecordNow(id)
  }

  /** `findRecord` without a promise when the row is at hand (SQLite's kept statement). */
  findRecordNow(id: string): TokenRecord<User> | null | Promise<TokenRecord<User> | null> {
    const model = this.model as AuthModel & { lookups(): PreparedLookup }
    const row = model.lookups().lookup(model.getTable(), this.#primaryKey, id)
    return row instanceof Promise ? row.then((found) => this.#record(found)) : this.#record(row)
  }

  #record(row: Record<string, unknown> | undefined): TokenRecord<User> | null {
    if (!row) return null
    const model = this.model
    const digest = row[this.column]
    let user: User | undefined
    return {
      digest: typeof digest === 'string' ? digest : null,
      user: () => (user ??= model.hydrate(row) as User),
    }
  }

  async storeDigest(user: User, digest: string | null): Promise<void> {
    await this.model.query().where(this.#primaryKey, user.getKey()).update({ [this.column]: digest })
    user.forceFill({ [this.column]: digest })
  }

  async clearDigestIf(id: string, digest: string): Promise<boolean> {
    return (await this.model.query().where(this.#primaryKey, id).where(this.column, digest).update({ [this.column]: null })) === 1
  }

  async clearDigest(id: unknown, db: Knex | Knex.Transaction): Promise<number> {
    return db(this.model.getTable()).where(this.#primaryKey, id as string | number).whereNotNull(this.column).update({ [this.column]: null })
  }

  async replaceDigest(id: string, oldDigest: string, newDigest: string): Promise<boolean> {
    const updated = await this.model.query().where(this.#primaryKey, id).where(this.column, oldDigest).update({ [this.column]: newDigest })
    return updated === 1
  }
}
