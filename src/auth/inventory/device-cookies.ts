/**
 * @module auth/inventory/device-cookies
 * Revocable device cookies. A `trowel_device` cookie (see guards/web/guard) names a browser that
 * logged into an account before: its attempts have their own budget and its logins send no
 * "new device" notice. The cookie carries the second it was issued; "This wasn't me", a password
 * reset and account deletion record, per user, when the user's device cookies were revoked (one
 * `user_tokens` row of purpose `devices_revoked`, replaced by each revocation, kept for the
 * cookie's lifetime). A cookie issued at or before that second is no longer a known device (a
 * cookie from before this scheme carries no time: it counts as issued at 0). Nothing about the
 * browsers is stored: the cookie is the only copy of the device id.
 */
import { randomBytes } from 'node:crypto'
import type { Knex } from 'knex'
import { sha256Hex } from '../tokens/index.js'
import { storedDate, type AuthInventory, type InventoryKind, type RevocationReason } from './index.js'

const TABLE = 'user_tokens'
/** `user_tokens.purpose` of the "device cookies revoked at" mark. */
export const DEVICES_REVOKED_PURPOSE = 'devices_revoked'
/** A device cookie lives a year: a mark older than that has nothing left to refuse. */
export const DEVICE_COOKIE_SECONDS = 365 * 24 * 60 * 60

const ENDS_ON: ReadonlySet<RevocationReason> = new Set<RevocationReason>(['secure', 'password_reset', 'delete'])

export class DeviceRevocations {
  readonly #inventory: AuthInventory
  readonly #db: () => Knex
  readonly #now: () => number

  constructor(inventory: AuthInventory, db: () => Knex, now: () => number = Date.now) {
    this.#inventory = inventory
    this.#db = db
    this.#now = now
  }

  /** When the user's device cookies were last revoked (epoch milliseconds, a whole second), or null. */
  async revokedAt(userId: unknown, db: Knex | Knex.Transaction = this.#db()): Promise<number | null> {
    await this.#inventory.migrated.ready(db)
    if (!this.#inventory.migrated.has(TABLE)) return null
    const row = await db(TABLE).where({ user_id: userId as string | number, purpose: DEVICES_REVOKED_PURPOSE }).max({ at: 'created_at' }).first()
    return storedDate(row?.at)?.getTime() ?? null
  }

  /** Whether a cookie issued at `issuedAt` (epoch seconds) for `userId` still names a known device. */
  async isCurrent(userId: unknown, issuedAt: number): Promise<boolean> {
    const revoked = await this.revokedAt(userId)
    return revoked === null || issuedAt * 1000 > revoked
  }

  /** Refuses every device cookie of the user issued up to now (this second included). */
  async revoke(userId: unknown, db: Knex | Knex.Transaction): Promise<number> {
    await this.#inventory.migrated.ready(db)
    if (!this.#inventory.migrated.has(TABLE)) return 0
    // The whole second (cookies carry seconds, and DATETIME columns may keep no fraction): a
    // cookie issued in this second, before or after this moment, is refused; from the next one on, known.
    const now = Math.floor(this.#now() / 1000) * 1000
    await db(TABLE).where({ user_id: userId as string | number, purpose: DEVICES_REVOKED_PURPOSE }).delete()
    await db(TABLE).insert({
      user_id: userId,
      purpose: DEVICES_REVOKED_PURPOSE,
      // Not a secret: the column is unique and required, so the mark holds a random value's digest.
      token_hash: sha256Hex(randomBytes(32).toString('base64url')),
      created_at: new Date(now),
      expires_at: new Date(now + DEVICE_COOKIE_SECONDS * 1000),
    })
    return 1
  }

  /** The inventory kind: nothing to list (browsers hold the only copy), all ended at once. */
  kind(): InventoryKind {
    return {
      name: 'device_cookies',
      endsOn: ENDS_ON,
      tables: [TABLE],
      list: async () => [],
      revokeOne: async () => 0,
      revokeAll: (userId, db, { deleting }) => (deleting ? Promise.resolve(0) : this.revoke(userId, db)),
    }
  }
}
