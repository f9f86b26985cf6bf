/**
 * @module api/api-inventory
 * The API's kinds in the auth inventory:
 * - `api_tokens`: the user's JWTs — the column store's current token, or with `store: 'table'`
 *   every token family (one per device) — and, with `revocation: 'epoch'`, the user's epoch,
 *   raised so that every token issued before is refused everywhere. Every revocation ends them (a
 *   password change and "log out other devices" too: an API client is another device, never the
 *   web login being kept).
 * - `personal_tokens`: personal access tokens are for scripts. A password change or reset and
 *   "log out other devices" keep them; "This wasn't me" and account deletion end them.
 */
import type { Application } from '../foundation/application.js'
import { ALL_REASONS, storedDate, type AuthInventory, type InventoryItem, type InventoryKind, type RevocationReason } from '../auth/inventory/index.js'
import { tableKind } from '../auth/inventory/table-kind.js'
import { API_TOKENS_TABLE } from './families/token-families.js'
import { PERSONAL_TOKENS_TABLE } from './personal-tokens/repository.js'

const PERSONAL_ENDS_ON: ReadonlySet<RevocationReason> = new Set<RevocationReason>(['secure', 'delete'])
/** A token family id: 16 random bytes, base64url. */
const FAMILY_ID = /^[A-Za-z0-9_-]{1,32}$/

/** Adds the API's kinds to `inventory` (ApiProvider, at boot). */
export function registerApiKinds(app: Application, inventory: AuthInventory): void {
  inventory.register(apiTokensKind(app, inventory))
  inventory.register(tableKind({ name: 'personal_tokens', table: PERSONAL_TOKENS_TABLE, endsOn: PERSONAL_ENDS_ON, columns: ['name'], label: (row) => String(row.name), ordered: true }))
}

function apiTokensKind(app: Application, inventory: AuthInventory): InventoryKind {
  const jwt = () => app.make('api.jwt')
  const hasFamilies = () => jwt().families !== null && jwt().families !== undefined && inventory.migrated.has(API_TOKENS_TABLE)
  return {
    name: 'api_tokens',
    endsOn: ALL_REASONS,
    tables: [API_TOKENS_TABLE, 'token_epoch_deletions'],
    // The column store keeps its token on the users row: the kind runs without either table.
    requires: [],
    async list(userId, db) {
      if (!hasFamilies()) return []
      const rows = await db(API_TOKENS_TABLE)
        .where('user_id', userId as string)
        .whereNull('replaced_by_hash')
        .whereNull('revoked_at')
        .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', new Date()))
        .select('family_id', 'device', 'family_created_at')
      return rows.map((row): InventoryItem => ({ kind: 'api_tokens', id: String(row.family_id), label: String(row.device ?? 'API client'), createdAt: storedDate(row.family_created_at) }))
    },
    async revokeOne(userId, id, db) {
      if (!FAMILY_ID.test(id) || !hasFamilies()) return 0
      return jwt().families!.revokeFamily(userId, id, db)
    },
    async revokeAll(userId, db, options) {
      const service = jwt()
      let count = 0
      if (service.families) count += inventory.migrated.has(API_TOKENS_TABLE) ? await service.families.revokeUser(userId, db) : 0
      else count += Number(await service.provider.clearDigest(userId, db))
      // The epoch refuses every token issued before, whatever the store.
      if (service.epochs) count += await service.epochs.bump(userId, db, { deleting: options.deleting })
      return count
    },
  }
}
