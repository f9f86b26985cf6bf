/**
 * @module auth/audit/audit-query
 * Reads the audit log for `craft auth:events` (and the account activity page): filters by user,
 * type and time, oldest first.
 */
import type { Knex } from 'knex'
import { AUDIT_TABLE } from './audit-log.js'

export interface AuditFilter {
  userId?: unknown
  /** `auth:login_failed` or `login_failed`. */
  type?: string
  since?: Date
  limit?: number
}

export interface AuditEntry {
  id: number
  user_id: number | null
  type: string
  ip: string | null
  user_agent: string | null
  details: Record<string, unknown>
  created_at: string
}

export async function queryAuditEvents(db: Knex, filter: AuditFilter = {}): Promise<AuditEntry[]> {
  let query = db(AUDIT_TABLE).select('*').orderBy([{ column: 'created_at', order: 'asc' }, { column: 'id', order: 'asc' }])
  if (filter.userId !== undefined) query = query.where('user_id', filter.userId as number)
  if (filter.type) query = query.where('type', filter.type.startsWith('auth:') ? filter.type : `auth:${filter.type}`)
  if (filter.since) query = query.where('created_at', '>=', filter.since)
  if (filter.limit) query = query.limit(filter.limit)
  const rows = (await query) as Record<string, unknown>[]
  return rows.map((row) => ({
    id: Number(row.id),
    user_id: row.user_id === null || row.user_id === undefined ? null : Number(row.user_id),
    type: String(row.type),
    ip: (row.ip as string | null) ?? null,
    user_agent: (row.user_agent as string | null) ?? null,
    details: parseDetails(row.details),
    created_at: new Date(row.created_at as string | number | Date).toISOString(),
  }))
}

/** An audit row's `details` column as an object: {} when it is empty, not JSON or not an object. */
export function parseDetails(value: unknown): Record<string, unknown> {
  if (typeof value !== 'string' || value === '') return {}
  try {
    const parsed = JSON.parse(value) as unknown
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}
