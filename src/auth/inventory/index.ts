/**
 * @module auth/inventory
 * The one inventory of what authenticates a user: web logins, "remember me" tokens, device
 * cookies, trusted-device marks, API tokens, personal access tokens, passkeys, TOTP enrolments,
 * pending e-mail changes, mailed links, and whatever a feature adds. Each feature contributes its
 * kinds (`manager.inventory.register(kind)`); every revocation — a password reset or change,
 * "log out other devices", "This wasn't me", account deletion, the devices page — acts through
 * it, naming its reason, and each kind says which reasons end it (`endsOn`). A way in that is not
 * a kind here survives every recovery: the inventory test fails for a user table no kind claims.
 */
import type { Knex } from 'knex'
import { MigratedTables } from './migrated-tables.js'

/** Why everything of a user is being ended: each kind says which of these end it. */
export type RevocationReason = 'secure' | 'password_reset' | 'password_change' | 'logout_others' | 'delete'

/** Every reason, for kinds that end on all of them. */
export const ALL_REASONS: ReadonlySet<RevocationReason> = new Set<RevocationReason>(['secure', 'password_reset', 'password_change', 'logout_others', 'delete'])

/** One thing that authenticates a user (or may soon): a login, a token, a passkey... */
export interface InventoryItem {
  /** The kind's name. */
  kind: string
  /** What `revokeOne` takes (unique within the kind). */
  id: string
  /** In plain words ("Firefox 132 on Windows", "YubiKey", "Authenticator app"). */
  label: string
  createdAt: Date | null
}

export interface RevokeOptions {
  reason: RevocationReason
  /** Run the deletes in this transaction (a reset consumes its token and revokes in one). */
  trx?: Knex.Transaction
  /** The `login_tokens.token_hash` of the login to keep (this device); null/absent = end all. */
  keepLoginHash?: string | null
  /** The user is being deleted: kinds that must outlive the row (token epochs) leave a trace. */
  deleting?: boolean
}

/** One kind of thing that authenticates a user, contributed by the feature that owns it. */
export interface InventoryKind {
  /** `logins`, `remember_tokens`, `device_cookies`, `trusted_devices`, `api_tokens`, `personal_tokens`, `passkeys`, `totp`, `email_changes`, `mailed_links`, ... */
  name: string
  /** A way to sign in, listed on the recovery page (passkeys, TOTP, identities, password). */
  signInMethod?: boolean
  /** A sign-in method's name in plain words on that page ("Passkey"); without it, the kind's name in words. */
  title?: string
  /** The revocations that end every item of this kind. */
  endsOn: ReadonlySet<RevocationReason>
  /** The database tables holding this kind (the inventory test checks every user table is claimed). */
  tables?: readonly string[]
  /**
   * The tables it cannot run without (default: `tables`): a kind whose table this app lacks (its
   * migration never ran, so nothing of it exists) is not run. A kind with a second, optional
   * table asks `inventory.migrated.has(table)`.
   */
  requires?: readonly string[]
  /** The `user_tokens.purpose` values whose rows are this kind's (the `mailed_links` kind leaves them alone). */
  purposes?: readonly string[]
  list(userId: unknown, db: Knex | Knex.Transaction): Promise<InventoryItem[]>
  /** Ends the user's item `id`; how many rows it ended (0: none of theirs). */
  revokeOne(userId: unknown, id: string, db: Knex | Knex.Transaction): Promise<number>
  revokeAll(userId: unknown, db: Knex | Knex.Transaction, options: RevokeOptions): Promise<number>
  /** Ends the items created at or after `since` (to the second: the same second counts as after). */
  revokeCreatedSince?(userId: unknown, since: Date, db: Knex | Knex.Transaction): Promise<number>
}

/** The auth model's users table, primary key and address column. */
export interface UsersTable {
  table: string
  key: string
  email: string
}

/** The users table of the configured model (`users`, `id`, `email` when the model says nothing). */
export function usersTableOf(model: { getTable?(): string; getPrimaryKey?(): string; authColumn?: string } | undefined): UsersTable {
  return { table: model?.getTable?.() ?? 'users', key: model?.getPrimaryKey?.() ?? 'id', email: model?.authColumn ?? 'email' }
}

/** `since` rounded down to its second: "created at or after" compares whole seconds. */
export function wholeSecond(since: Date): Date {
  return new Date(Math.floor(since.getTime() / 1000) * 1000)
}

/** A stored date (Date, ISO text or epoch milliseconds, by driver) as a Date, or null. */
export function storedDate(value: unknown): Date | null {
  if (value === null || value === undefined || value === '') return null
  const at = value instanceof Date ? value : new Date(typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : (value as string | number))
  return Number.isFinite(at.getTime()) ? at : null
}

export class AuthInventory {
  readonly #db: () => Knex
  readonly #kinds: InventoryKind[] = []
  /** Which tables the app has (read once per process): a kind runs only when it has its tables. */
  readonly migrated: MigratedTables

  /** `columnTables`: the tables whose columns `migrated.hasColumn` answers for (the users table, `user_tokens`). */
  constructor(db: () => Knex, options: { columnTables?: () => readonly string[] } = {}) {
    this.#db = db
    this.migrated = new MigratedTables(db, options.columnTables)
  }

  /** Adds a kind; a second kind of the same name throws (two features claiming one name is a bug). */
  register(kind: InventoryKind): void {
    if (this.#kinds.some((k) => k.name === kind.name)) throw new Error(`The inventory already has a kind named "${kind.name}".`)
    this.#kinds.push(kind)
  }

  /** Every kind registered (those of features whose tables this app lacks too). */
  kinds(): readonly InventoryKind[] {
    return this.#kinds
  }

  kind(name: string): InventoryKind | undefined {
    return this.#kinds.find((k) => k.name === name)
  }

  /** The kinds this app has the tables of (`db`: the caller's transaction, for a first read on SQLite). */
  async #running(db: Knex | Knex.Transaction, which: (kind: InventoryKind) => boolean = () => true): Promise<InventoryKind[]> {
    await this.migrated.ready(db)
    return this.#kinds.filter((k) => which(k) && (k.requires ?? k.tables ?? []).every((table) => this.migrated.has(table)))
  }

  /**
   * Ends, for `options.reason`, every item of each kind whose `endsOn` has it (in `options.trx`
   * when given, else in one transaction of its own); how many of each kind ended.
   */
  async revokeAll(userId: unknown, options: RevokeOptions): Promise<Record<string, number>> {
    const run = async (trx: Knex.Transaction): Promise<Record<string, number>> => {
      const counts: Record<string, number> = {}
      for (const kind of await this.#running(trx, (k) => k.endsOn.has(options.reason))) counts[kind.name] = Number(await kind.revokeAll(userId, trx, { ...options, trx }))
      return counts
    }
    return options.trx ? run(options.trx) : this.#db().transaction(run)
  }

  /** Ends the user's item `id` of `kind`; 0 when the kind is unknown or the item not theirs. */
  async revokeOne(userId: unknown, kind: string, id: string, trx?: Knex.Transaction): Promise<number> {
    const db = trx ?? this.#db()
    const found = (await this.#running(db, (k) => k.name === kind))[0]
    if (!found) return 0
    return Number(await found.revokeOne(userId, id, db))
  }

  /** Ends every item created at or after `since` of the kinds that can tell (passkeys, TOTP, identities, sent invitations). */
  async revokeCreatedSince(userId: unknown, since: Date, trx?: Knex.Transaction): Promise<Record<string, number>> {
    const run = async (db: Knex.Transaction): Promise<Record<string, number>> => {
      const counts: Record<string, number> = {}
      for (const kind of await this.#running(db, (k) => Boolean(k.revokeCreatedSince))) counts[kind.name] = Number(await kind.revokeCreatedSince!(userId, since, db))
      return counts
    }
    return trx ? run(trx) : this.#db().transaction(run)
  }

  /** Everything of the user, every kind (the sign-in methods first). */
  async list(userId: unknown, trx?: Knex.Transaction): Promise<InventoryItem[]> {
    const db = trx ?? this.#db()
    const lists: InventoryItem[][] = []
    // One at a time: a transaction is one connection.
    for (const kind of (await this.#running(db)).sort((a, b) => Number(Boolean(b.signInMethod)) - Number(Boolean(a.signInMethod)))) lists.push(await kind.list(userId, db))
    return lists.flat()
  }
}
