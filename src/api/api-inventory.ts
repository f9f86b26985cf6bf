/**
 * @module api/api-inventory
 * The JWTs' kind in the auth inventory (the personal access tokens' is in personal-tokens/):
 * - `api_tokens`: the user's JWTs — the column store's current token, or with `store: 'table'`
 *   every token family (one per device) — and, with `revocation: 'epoch'`, the user's epoch,
 *   raised so that every token issued before is refused everywhere. Every revocation ends them (a
 *   password change and "log out other devices" too: an API client is another device, never the
 *   web login being kept).
 * The families' table is there whenever families are on (their piece's migration ran: the API
 * feature list's rule), so nothing here asks the schema.
 */
import type { Application } from '../foundation/application.js'
import { ALL_REASONS, storedDate, type InventoryItem, type InventoryKind } from '../auth/inventory/index.js'
import { API_TOKENS_TABLE } from './families/token-families.js'
import { TOMBSTONE_TABLE } from './revocation/token-epochs.js'

/** A token family id: 16 random bytes, base64url. */
const FAMILY_ID = /^[A-Za-z0-9_-]{1,32}$/

/** The `api_tokens` kind (ApiProvider registers it at boot, before the API features' kinds). */
export function apiTokensKind(app: Application): InventoryKind {
  const jwt = () => app.make('api.jwt')
  return {
    name: 'api_tokens',
    endsOn: ALL_REASONS,
    tables: [API_TOKENS_TABLE, TOMBSTONE_TABLE],
    // The column store keeps its token on the users row: the kind runs without either table.
    requires: [],
    async list(userId, db) {
      if (!jwt().families) return []
      const rows = await db(API_TOKENS_TABLE)
        .where('user_id', userId as string)
        .whereNull('replaced_by_hash')
        .whereNull('revoked_at')
        .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', new Date()))
        .select('family_id', 'device', 'family_created_at')
      return rows.map((row): InventoryItem => ({ kind: 'api_tokens', id: String(row.family_id), label: String(row.device ?? 'API client'), createdAt: storedDate(row.family_created_at) }))
    },
    async revokeOne(userId, id, db) {
      const families = jwt().families
      if (!FAMILY_ID.test(id) || !families) return 0
      return families.revokeFamily(userId, id, db)
    },
    async revokeAll(userId, db, options) {
      const service = jwt()
      let count = 0
      if (service.families) count += await service.families.revokeUser(userId, db)
      else count += Number(await service.provider.clearDigest(userId, db))
      // The epoch refuses every token issued before, whatever the store.
      if (service.epochs) count += await service.epochs.bump(userId, db, { deleting: options.deleting })
      return count
    },
  }
}
