/**
 * @module api/families/family-devices
 * The API token families on the account's devices page (`GET /account/devices`): one entry per
 * live family (device label, created, last used, IP), id `api-<family id>`; revoking one ends
 * every token of that family (the inventory's `api_tokens` kind). Registered by ApiProvider when `DRIVERS.jwt.store` is `'table'`.
 */
import type { Device, DeviceContext, DeviceSource, RevokedDevice } from '../../auth/accounts/devices.js'
import type { AuthInventory } from '../../auth/inventory/index.js'
import { API_TOKENS_TABLE, TokenFamilies } from './token-families.js'

function date(value: unknown): Date | null {
  if (value === null || value === undefined || value === '') return null
  const at = new Date(value as string | number | Date)
  return Number.isFinite(at.getTime()) ? at : null
}

export class TokenFamilyDevices implements DeviceSource {
  readonly kind = 'api'

  constructor(
    private readonly families: () => TokenFamilies,
    /** Ends a family through the inventory's `api_tokens` kind. */
    private readonly inventory: AuthInventory,
  ) {}

  private async hasTable(): Promise<boolean> {
    await this.inventory.migrated.ready()
    return this.inventory.migrated.has(API_TOKENS_TABLE)
  }

  owns(id: string): boolean {
    return TokenFamilies.familyOfDeviceId(id) !== null
  }

  async list(userId: unknown, _context: DeviceContext): Promise<Device[]> {
    if (!(await this.hasTable())) return []
    const rows = await this.families().listCurrent(userId)
    return rows.map((row) => {
      const label = typeof row.device === 'string' && row.device !== '' ? row.device : 'Unknown device'
      return {
        id: `api-${row.family_id}`,
        kind: this.kind,
        createdAt: date(row.family_created_at),
        lastUsedAt: date(row.last_used_at) ?? date(row.created_at),
        ip: typeof row.ip === 'string' && row.ip !== '' ? row.ip : null,
        userAgent: null,
        client: `API: ${label}`,
        // A family is an API client, never the browser showing the page.
        current: false,
      }
    })
  }

  async revoke(userId: unknown, id: string, _context: DeviceContext): Promise<RevokedDevice | null> {
    const familyId = TokenFamilies.familyOfDeviceId(id)
    if (familyId === null || !(await this.hasTable())) return null
    const count = await this.inventory.revokeOne(userId, 'api_tokens', familyId)
    return count > 0 ? { count: 1, current: false } : null
  }
}
