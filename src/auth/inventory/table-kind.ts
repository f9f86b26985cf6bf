/**
 * @module auth/inventory/table-kind
 * A kind kept in rows of one table, each row an item: a feature states what differs (its table,
 * which rows are the user's, the label, what ends it) and gets `list`, `revokeOne`, `revokeAll`
 * and, when asked, `revokeCreatedSince`. The inventory runs the kind only when the app has its
 * table (`MigratedTables`), so none of them asks the database about its schema.
 */
import type { Knex } from 'knex'
import { storedDate, wholeSecond, type InventoryItem, type InventoryKind, type RevocationReason, type RevokeOptions } from './index.js'

type Db = Knex | Knex.Transaction
type Row = Record<string, unknown>

/** A row id: a positive whole number (up to 19 digits, as a bigint column holds). */
const ROW_ID = /^[1-9][0-9]{0,18}$/

export interface TableKindSpec {
  name: string
  table: string
  endsOn: ReadonlySet<RevocationReason>
  /** A way to sign in, listed on the recovery page. */
  signInMethod?: boolean
  /** The user's rows (default: `user_id` is the user). */
  rows?(db: Db, userId: string | number): Knex.QueryBuilder
  /** Columns `label` reads, besides `id` and `created_at`. */
  columns?: readonly string[]
  /** How the item reads in a list. */
  label(row: Row): string
  /** Lists by id (default: the database's order). */
  ordered?: boolean
  /** Never listed, never ended one by one (logins in progress). */
  unlisted?: boolean
  /** Narrows what `revokeAll` ends (keep this browser's login, ...). */
  narrowAll?(rows: Knex.QueryBuilder, options: RevokeOptions): Knex.QueryBuilder
  /** Ends the rows (default: deletes them). */
  end?(rows: Knex.QueryBuilder): Promise<number>
  /** Runs first in `revokeAll` (in its transaction): may refuse it by throwing. */
  beforeRevokeAll?(userId: unknown, db: Db, options: RevokeOptions): Promise<void>
  /** Adds `revokeCreatedSince` (ways in that "This wasn't me" removes by age). */
  createdSince?: boolean
}

/** An id as the driver compares it: a number while it is exact, else its digits. */
function rowKey(id: string): number | string {
  return id.length <= 15 ? Number(id) : id
}

/** The kind of `spec`. */
export function tableKind(spec: TableKindSpec): InventoryKind {
  const rows = (db: Db, userId: unknown): Knex.QueryBuilder => spec.rows?.(db, userId as string | number) ?? db(spec.table).where('user_id', userId as string | number)
  const end = async (query: Knex.QueryBuilder): Promise<number> => Number(await (spec.end ? spec.end(query) : query.delete()))
  const kind: InventoryKind = {
    name: spec.name,
    ...(spec.signInMethod ? { signInMethod: true } : {}),
    endsOn: spec.endsOn,
    tables: [spec.table],
    async list(userId, db) {
      if (spec.unlisted) return []
      const query = rows(db, userId).select('id', 'created_at', ...(spec.columns ?? []))
      if (spec.ordered) query.orderBy('id')
      const found = (await query) as Row[]
      return found.map((row): InventoryItem => ({ kind: spec.name, id: String(row.id), label: spec.label(row), createdAt: storedDate(row.created_at) }))
    },
    async revokeOne(userId, id, db) {
      if (spec.unlisted || !ROW_ID.test(id)) return 0
      return end(rows(db, userId).where('id', rowKey(id)))
    },
    async revokeAll(userId, db, options) {
      await spec.beforeRevokeAll?.(userId, db, options)
      const query = rows(db, userId)
      return end(spec.narrowAll ? spec.narrowAll(query, options) : query)
    },
  }
  if (spec.createdSince) kind.revokeCreatedSince = (userId, since, db) => end(rows(db, userId).where('created_at', '>=', wholeSecond(since)))
  return kind
}
