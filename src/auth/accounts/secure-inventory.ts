/**
 * @module auth/accounts/secure-inventory
 * TEMPORARY until the inventory lands: the part of `manager.inventory` "This wasn't me" uses,
 * backed by the revoker and direct deletes.
 */
import type { Knex } from 'knex'
import type { AuthManager } from '../auth-manager.js'

export interface SecureInventoryKind {
  name: string
  signInMethod?: boolean
  list(userId: unknown, db: Knex | Knex.Transaction): Promise<{ kind: string; id: string; label: string; createdAt: Date | null }[]>
}

export interface SecureInventory {
  revokeAll(userId: unknown, options: { reason: 'secure'; trx?: Knex.Transaction }): Promise<Record<string, number>>
  revokeOne(userId: unknown, kind: string, id: string, trx?: Knex.Transaction): Promise<number>
  revokeCreatedSince(userId: unknown, since: Date, trx?: Knex.Transaction): Promise<Record<string, number>>
  kinds(): readonly SecureInventoryKind[]
}

export function inventoryOf(manager: AuthManager): SecureInventory {
  const own = (manager as unknown as { inventory?: SecureInventory }).inventory
  if (own) return own
  const users = () => ({ table: manager.model.getTable() as string, key: manager.model.getPrimaryKey() as string })
  const turnOff = async (userId: unknown, db: Knex | Knex.Transaction, since?: Date) => {
    const { table, key } = users()
    const q = db(table).where(key, userId as string | number).whereNotNull('two_factor_confirmed_at')
    if (since) q.where('two_factor_confirmed_at', '>=', since)
    const n = await q.update({ two_factor_secret: null, two_factor_confirmed_at: null })
    if (n > 0) await db('two_factor_recovery_codes').where('user_id', userId as string | number).delete()
    return n
  }
  const kinds: SecureInventoryKind[] = [
    {
      name: 'passkeys',
      signInMethod: true,
      async list(userId, db) {
        const rows = await db('passkeys').where('user_id', userId as string | number).orderBy('id')
        return rows.map((r) => ({ kind: 'passkeys', id: String(r.id), label: String(r.name), createdAt: new Date(r.created_at) }))
      },
    },
    {
      name: 'totp',
      signInMethod: true,
      async list(userId, db) {
        const { table, key } = users()
        const row = await db(table).where(key, userId as string | number).whereNotNull('two_factor_confirmed_at').first()
        return row ? [{ kind: 'totp', id: String(userId), label: 'Authenticator app', createdAt: new Date(row.two_factor_confirmed_at) }] : []
      },
    },
  ]
  return {
    revokeAll: (userId, { trx }) => manager.revoker.revokeAll(userId, { trx }),
    async revokeOne(userId, kind, id, trx) {
      const db = trx ?? manager.model.query().client
      if (kind === 'passkeys') return db('passkeys').where({ user_id: userId, id: Number(id) }).delete()
      if (kind === 'totp') return turnOff(userId, db)
      return 0
    },
    async revokeCreatedSince(userId, since, trx) {
      const db = trx!
      return {
        passkeys: await db('passkeys').where('user_id', userId as string | number).where('created_at', '>=', since).delete(),
        totp: await turnOff(userId, db, since),
      }
    },
    kinds: () => kinds,
  }
}
