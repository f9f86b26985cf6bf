/**
 * @module api/personal-tokens/inventory
 * The `personal_tokens` kind of the auth inventory: personal access tokens are for scripts. A
 * password change or reset and "log out other devices" keep them; "This wasn't me" and account
 * deletion end them. The inventory runs it only when the app has the table.
 */
import type { InventoryKind, RevocationReason } from '../../auth/inventory/index.js'
import { tableKind } from '../../auth/inventory/table-kind.js'
import { PERSONAL_TOKENS_TABLE } from './repository.js'

const PERSONAL_ENDS_ON: ReadonlySet<RevocationReason> = new Set<RevocationReason>(['secure', 'delete'])

export function personalTokensKind(): InventoryKind {
  return tableKind({ name: 'personal_tokens', table: PERSONAL_TOKENS_TABLE, endsOn: PERSONAL_ENDS_ON, columns: ['name'], label: (row) => String(row.name), ordered: true })
}
