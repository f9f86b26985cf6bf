/**
 * @module auth/passkeys/inventory
 * The `passkeys` kind (a way to sign in): kept by every revocation but deletion; "This wasn't me"
 * removes the reported one and those created at or after the reported event (`revokeCreatedSince`).
 * Registered whether or not the feature is on; run only in an app that has the passkeys table.
 */
import type { InventoryKind, RevocationReason } from '../inventory/index.js'
import { tableKind } from '../inventory/table-kind.js'

/** A way to sign in ends only with the account (and by "This wasn't me" for the ones it reports). */
const DELETE_ONLY: ReadonlySet<RevocationReason> = new Set<RevocationReason>(['delete'])

export function passkeysKind(): InventoryKind {
  return tableKind({ name: 'passkeys', table: 'passkeys', signInMethod: true, endsOn: DELETE_ONLY, columns: ['name'], label: (row) => String(row.name), ordered: true, createdSince: true })
}
